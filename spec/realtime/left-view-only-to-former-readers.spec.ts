// A `delete` with reason "left-view" tells a subscriber that a record it could read has left its view. A
// reader who never could read the record must not be told of it at all: the event would hand it the id of a
// record its read rule hides (an unpublished draft) and the moment an editor changed it. The router's own
// writes can always tell whether the record was readable just before: they are the ones writing it.
import request from 'supertest';
import type { CollectionConfig } from '../../lib';
import { asUser } from '../helpers/create-test-app';
import { type SseClient, type WsClient, openSse, openWs } from './realtime-clients';
import { type RealtimeTestApp, admin, createRealtimeTestApp } from './realtime-test-app';

jest.setTimeout(30_000);

/** The public reads published articles; editors (admins) read and write everything, without a constraint. */
const ARTICLES: CollectionConfig = {
  slug: 'articles',
  softDelete: true,
  fields: { title: { type: 'text' }, status: { type: 'select', options: ['draft', 'review', 'published'] } },
  access: {
    read: ({ user }) => (user?.role === 'admin' ? true : { status: { eq: 'published' } }),
    create: ({ user }) => user?.role === 'admin',
    update: ({ user }) => user?.role === 'admin',
    delete: ({ user }) => user?.role === 'admin',
  },
};

let t: RealtimeTestApp;
const clients: Array<SseClient | WsClient> = [];
const editor = asUser(admin);

beforeAll(async () => {
  t = await createRealtimeTestApp(true, { collections: [ARTICLES] });
});
afterEach(() => {
  for (const client of clients.splice(0)) client.close();
  expect(t.hostErrors).toEqual([]);
});
afterAll(() => t.close());

type Event = Record<string, unknown>;

/** An anonymous subscriber over SSE and WebSocket; `settled` waits for a marker so every earlier event has arrived. */
async function publicReader() {
  const sse = await openSse(t.server, '/api/sse?collections=articles');
  expect(sse.status).toBe(200);
  const ws = await openWs(t.server, '/api/ws');
  clients.push(sse, ws);
  ws.send({ type: 'subscribe', collections: ['articles'] });
  await ws.next((m) => m.type === 'subscribed');
  return {
    async settled(): Promise<void> {
      const marker = String((await request(t.app).post('/api/articles').set(...editor).send({ title: 'marker', status: 'published' }).expect(201)).body.id);
      await sse.events.find((e) => (JSON.parse(e.data) as Event).docId === marker);
      await ws.next((m) => m.docId === marker);
    },
    about: (id: string) => ({
      sse: sse.events.items.map((e) => JSON.parse(e.data) as Event).filter((e) => e.docId === id),
      ws: ws.messages.items.filter((m: Event) => m.docId === id),
    }),
  };
}

async function draft(title: string): Promise<string> {
  return String((await request(t.app).post('/api/articles').set(...editor).send({ title, status: 'draft' }).expect(201)).body.id);
}

it('an editor saving a draft with its status (as an edit form sends every field) tells the public nothing of the draft', async () => {
  const id = await draft('Merger plan');
  const anonymous = await publicReader();
  await request(t.app).patch(`/api/articles/${id}`).set(...editor).send({ title: 'Merger plan v2', status: 'draft' }).expect(200);
  await request(t.app).patch(`/api/articles/${id}`).set(...editor).send({ status: 'review' }).expect(200);
  await anonymous.settled();
  expect(anonymous.about(id)).toEqual({ sse: [], ws: [] });
});

it('restoring a soft-deleted draft tells the public nothing of it', async () => {
  const id = await draft('Withdrawn');
  await request(t.app).delete(`/api/articles/${id}`).set(...editor).expect(200);
  const anonymous = await publicReader();
  await request(t.app).post(`/api/articles/${id}/restore`).set(...editor).expect(200);
  await anonymous.settled();
  expect(anonymous.about(id)).toEqual({ sse: [], ws: [] });
});

it('restoring a soft-deleted published article brings it back to the public (entered its view)', async () => {
  const id = String((await request(t.app).post('/api/articles').set(...editor).send({ title: 'Back', status: 'published' }).expect(201)).body.id);
  await request(t.app).delete(`/api/articles/${id}`).set(...editor).expect(200);
  const anonymous = await publicReader();
  await request(t.app).post(`/api/articles/${id}/restore`).set(...editor).expect(200);
  await anonymous.settled();
  expect(anonymous.about(id).sse).toMatchObject([{ type: 'create', reason: 'entered-view', doc: { id, title: 'Back' } }]);
  expect(anonymous.about(id).ws).toMatchObject([{ type: 'create', reason: 'entered-view', doc: { id, title: 'Back' } }]);
});

it('a published article unpublished by a PATCH by id still leaves the public view (the takedown is kept)', async () => {
  const id = String((await request(t.app).post('/api/articles').set(...editor).send({ title: 'Live', status: 'published' }).expect(201)).body.id);
  const anonymous = await publicReader();
  await request(t.app).patch(`/api/articles/${id}`).set(...editor).send({ status: 'review' }).expect(200);
  await anonymous.settled();
  expect(anonymous.about(id).sse).toMatchObject([{ type: 'delete', reason: 'left-view' }]);
  expect(anonymous.about(id).ws).toMatchObject([{ type: 'delete', reason: 'left-view' }]);
});
