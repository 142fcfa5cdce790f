// Uploads publish on the change bus (for the response cache) under the uploads' pseudo-collection, which is
// no collection a realtime client can name: storing and deleting files reaches no subscriber, whatever it
// subscribed to, and asking for the files' events is refused like any unknown collection.
import request from 'supertest';
import { asUser } from '../helpers/create-test-app';
import { pngBytes } from '../uploads/upload-helpers';
import { type SseClient, openSse, openWs } from './realtime-clients';
import { type RealtimeTestApp, admin, createRealtimeTestApp } from './realtime-test-app';

jest.setTimeout(30_000);

let t: RealtimeTestApp;
const open: SseClient[] = [];

beforeAll(async () => {
  t = await createRealtimeTestApp(true, { extra: { uploads: {} } });
});
afterEach(() => {
  for (const client of open.splice(0)) client.close();
  expect(t.hostErrors).toEqual([]);
});
afterAll(() => t.close());

it('delivers no event for a file stored or deleted, over HTTP or the local API', async () => {
  const sse = await openSse(t.server, '/api/sse?collections=open,notes', { 'X-Test-User': JSON.stringify(admin) });
  open.push(sse);
  // Anonymous (the host's header auth does not run for upgrades): `open` is public.
  const ws = await openWs(t.server, '/api/ws');
  try {
    ws.send({ type: 'subscribe', collections: ['open'] });
    await ws.next((m) => m.type === 'subscribed');

    const viaHttp = await request(t.app).post('/api/upload').set(...asUser(admin)).attach('file', pngBytes(), { filename: 'a.png', contentType: 'image/png' }).expect(201);
    const viaLocal = await t.api.local.upload(pngBytes(), { filename: 'b.png', mimeType: 'image/png' });
    await request(t.app).delete(viaHttp.body.url).set(...asUser(admin)).expect(200);
    await t.api.local.deleteUpload(viaLocal.filename);
    // A record change after them: once it arrives, anything the files caused would have arrived before it.
    const marker = (await request(t.app).post('/api/open').set(...asUser(admin)).send({ name: 'marker' }).expect(201)).body.id as string;

    const first = await sse.next(() => true);
    expect(JSON.parse(first.data)).toMatchObject({ type: 'create', collection: 'open', docId: marker });
    const wsFirst = await ws.next((m) => m.type !== 'subscribed');
    expect(wsFirst).toMatchObject({ type: 'create', collection: 'open', docId: marker });
    for (const text of [JSON.stringify(sse.events.items), JSON.stringify(ws.messages.items)]) {
      for (const file of [viaHttp.body, viaLocal]) {
        expect(text).not.toContain(file.id);
        expect(text).not.toContain(file.filename);
      }
    }
  } finally {
    ws.close();
  }
});

it('refuses a subscription to the files as an unknown collection', async () => {
  const sse = await openSse(t.server, '/api/sse?collections=_uploads', { 'X-Test-User': JSON.stringify(admin) });
  open.push(sse);
  expect(sse.status).toBe(400);
  expect(JSON.parse(sse.body).errors).toEqual([expect.objectContaining({ code: 'unknown_collection' })]);
});
