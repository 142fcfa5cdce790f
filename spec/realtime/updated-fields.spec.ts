// `updatedFields` of realtime update events never names a hidden field, over SSE and WebSocket, whatever
// made the change: this router's REST routes, its local API, or another process (the change stream). An
// update of hidden fields alone still arrives, with `updatedFields: []`.
import { Types } from 'mongoose';
import request from 'supertest';
import type { CollectionConfig } from '../../lib';
import { asUser } from '../helpers/create-test-app';
import { capabilities, describeIf } from '../helpers/test-db';
import { bearer, registerAdmin, registerUser } from '../auth/auth-test-app';
import { type SseClient, type WsClient, openSse, openWs } from './realtime-clients';
import { type RealtimeTestApp, admin, createRealtimeTestApp } from './realtime-test-app';

jest.setTimeout(30_000);

/** Readable by anyone, with a hidden field beside the visible one. */
const WIKI: CollectionConfig = {
  slug: 'wiki',
  fields: { title: { type: 'text' }, internal: { type: 'text', hidden: true } },
  access: { read: () => true },
};

let t: RealtimeTestApp;
const clients: Array<SseClient | WsClient> = [];

beforeAll(async () => {
  t = await createRealtimeTestApp(true, { collections: [WIKI] });
});
afterEach(() => {
  for (const client of clients.splice(0)) client.close();
  expect(t.hostErrors).toEqual([]);
});
afterAll(() => t.close());

/** An SSE and a WebSocket subscriber of `slug`, both subscribed when this resolves. */
async function subscribers(slug: string, headers: Record<string, string> = {}): Promise<{ sse: SseClient; ws: WsClient }> {
  const sse = await openSse(t.server, `/api/sse?collections=${slug}`, headers);
  expect(sse.status).toBe(200);
  const ws = await openWs(t.server, '/api/ws', { headers });
  clients.push(sse, ws);
  ws.send({ type: 'subscribe', collections: [slug] });
  await ws.next((m) => m.type === 'subscribed');
  return { sse, ws };
}

const taken = new WeakMap<SseClient, number>();
/** Ids of this router's own events (`<run>-<sequence>`); the change stream's are resume tokens. */
const OWN_ID = /^[0-9a-f]{8}-\d+$/;

/**
 * The next update event about `id` on each transport, as the JSON text the client received and parsed.
 * `own`: only this router's own events (other writes to the record, such as the verification token set at
 * registration, arrive through the change stream in no fixed order).
 */
async function nextUpdates(to: { sse: SseClient; ws: WsClient }, id: string, own = false): Promise<Array<{ text: string; event: Record<string, unknown> }>> {
  const wanted = (event: Record<string, unknown>) => event.type === 'update' && event.docId === id && (!own || OWN_ID.test(String(event.id)));
  // From the first event not taken yet (the WebSocket client keeps its own place).
  const viaSse = await to.sse.events.find((e) => wanted(JSON.parse(e.data) as Record<string, unknown>), taken.get(to.sse) ?? 0);
  taken.set(to.sse, to.sse.events.items.indexOf(viaSse) + 1);
  const viaWs = await to.ws.next(wanted);
  return [
    { text: viaSse.data, event: JSON.parse(viaSse.data) as Record<string, unknown> },
    { text: JSON.stringify(viaWs), event: viaWs },
  ];
}

async function createWiki(): Promise<string> {
  return (await t.api.local.create('wiki', { title: 'first', internal: 'before' })).id;
}

describe('updatedFields of this router\'s own writes', () => {
  it('an anonymous subscriber is not told a hidden field changed (local API)', async () => {
    const id = await createWiki();
    const to = await subscribers('wiki');
    await t.api.local.update('wiki', id, { title: 'second', internal: 'the-new-internal-value' });
    for (const { text, event } of await nextUpdates(to, id)) {
      expect(event).toMatchObject({ type: 'update', collection: 'wiki', docId: id, updatedFields: ['title'], doc: { id, title: 'second' } });
      expect(text).not.toContain('internal');
    }
  });

  it('an update of hidden fields alone arrives with updatedFields: [] (local API)', async () => {
    const id = await createWiki();
    const to = await subscribers('wiki');
    await t.api.local.update('wiki', id, { internal: 'changed again' });
    for (const { text, event } of await nextUpdates(to, id)) {
      expect(event).toMatchObject({ type: 'update', docId: id, updatedFields: [], doc: { id, title: 'first' } });
      expect(text).not.toContain('internal');
    }
  });

  it('subscribers of an auth collection are never told a password changed (local API and REST)', async () => {
    const user = await registerUser(t);
    const [name, value] = bearer((await registerAdmin(t)).accessToken);
    const to = await subscribers('users', { [name]: value });
    await t.api.local.update('users', user.id, { password: 'An0ther-Secret!', bio: 'hello' });
    for (const { text, event } of await nextUpdates(to, user.id, true)) {
      expect(event).toMatchObject({ type: 'update', collection: 'users', docId: user.id, updatedFields: ['bio'] });
      expect(text).not.toContain('password');
    }

    const patched = await request(t.app).patch(`/api/users/${user.id}`).set(...asUser(admin)).send({ password: 'Th1rd-Secret!!' });
    expect(patched.status).toBe(200);
    for (const { text, event } of await nextUpdates(to, user.id, true)) {
      expect(event).toMatchObject({ type: 'update', docId: user.id, updatedFields: [] });
      expect(text).not.toContain('password');
    }
  });
});

describeIf(capabilities().changeStreams, 'the server has no change streams')('updatedFields of writes made elsewhere (the change stream)', () => {
  it('names only visible fields of a document updated through the driver', async () => {
    const id = await createWiki();
    const to = await subscribers('wiki');
    const wiki = t.connection.db!.collection('wiki');
    await wiki.updateOne({ _id: new Types.ObjectId(id) }, { $set: { title: 'from the driver', internal: 'driver-internal', updatedAt: new Date() }, $unset: { nothing: '' } });
    // Servers whose update events carry no updateDescription (plain mongo-java-server) leave the changed fields
    // unknown: no updatedFields at all. hub-feed.spec.ts checks the stripping of stream events without a server.
    const told = (event: Record<string, unknown>) => event.updatedFields !== undefined;
    for (const { text, event } of await nextUpdates(to, id)) {
      expect(event).toMatchObject({ type: 'update', docId: id, doc: { id, title: 'from the driver' } });
      if (told(event)) expect(event.updatedFields).toEqual(['title', 'updatedAt']);
      expect(text).not.toContain('internal');
    }

    // Hidden fields alone (and a field no schema knows): an event with nothing a reader can see named.
    await wiki.updateOne({ _id: new Types.ObjectId(id) }, { $set: { internal: 'driver-internal-2', stray: 1 } });
    for (const { text, event } of await nextUpdates(to, id)) {
      expect(event).toMatchObject({ type: 'update', docId: id });
      if (told(event)) expect(event.updatedFields).toEqual([]);
      expect(text).not.toContain('internal');
      expect(text).not.toContain('stray');
    }
  });
});
