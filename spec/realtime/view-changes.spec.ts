// Realtime readers whose read rule returns a where see records enter and leave their view: an update that
// makes a record unreadable to a subscriber reaches it as a `delete` ("left your view"), one that makes it
// readable as a `create`, over SSE and WebSocket alike, whatever made the change: a write by id, a bulk
// write by where, or another process (the change stream). Readers whose view did not change get the
// update (or nothing), as before.
import { Types } from 'mongoose';
import request from 'supertest';
import type { CollectionConfig } from '../../lib';
import { asUser } from '../helpers/create-test-app';
import { capabilities, itIf } from '../helpers/test-db';
import { type SseClient, type WsClient, openSse, openWs } from './realtime-clients';
import { bearer, registerAdmin } from '../auth/auth-test-app';
import { type RealtimeTestApp, admin, createRealtimeTestApp } from './realtime-test-app';

jest.setTimeout(30_000);

/** A newsroom's articles: the public reads published ones, editors (admins) everything. */
const ARTICLES: CollectionConfig = {
  slug: 'articles',
  fields: { title: { type: 'text' }, status: { type: 'select', options: ['draft', 'published'] } },
  access: {
    read: ({ user }) => (user?.role === 'admin' ? true : { status: { eq: 'published' } }),
    update: ({ user }) => user?.role === 'admin',
    create: ({ user }) => user?.role === 'admin',
  },
};

let t: RealtimeTestApp;
/** An editor's credential, which WebSocket upgrades carry too (the host's middleware does not run for them). */
let editorHeaders: Record<string, string>;
const clients: Array<SseClient | WsClient> = [];
const editor = asUser(admin);

beforeAll(async () => {
  t = await createRealtimeTestApp(true, { collections: [ARTICLES] });
  const [name, value] = bearer((await registerAdmin(t)).accessToken);
  editorHeaders = { [name]: value };
});
afterEach(() => {
  for (const client of clients.splice(0)) client.close();
  expect(t.hostErrors).toEqual([]);
});
afterAll(() => t.close());

type Event = Record<string, unknown>;

/** A subscriber of articles over both transports, reading each transport's events in order. */
interface Reader {
  /** The next event (SSE and WebSocket agree on it) about `id`, from where the last one was found. */
  next(id: string): Promise<Event>;
  /** The types of every event about `id` received so far over SSE. */
  seen(id: string): string[];
}

async function reader(headers: Record<string, string> = {}): Promise<Reader> {
  const sse = await openSse(t.server, '/api/sse?collections=articles', headers);
  expect(sse.status).toBe(200);
  const ws = await openWs(t.server, '/api/ws', { headers });
  clients.push(sse, ws);
  ws.send({ type: 'subscribe', collections: ['articles'] });
  await ws.next((m) => m.type === 'subscribed');
  let from = 0;
  return {
    async next(id) {
      const frame = await sse.events.find((e) => (JSON.parse(e.data) as Event).docId === id, from);
      from = sse.events.items.indexOf(frame) + 1;
      const viaSse = JSON.parse(frame.data) as Event;
      expect(frame.event).toBe(viaSse.type);
      const viaWs = await ws.next((m) => m.docId === id);
      expect(viaWs).toEqual(viaSse);
      return viaSse;
    },
    seen: (id) => sse.events.items.map((e) => JSON.parse(e.data) as Event).filter((e) => e.docId === id).map((e) => String(e.type)),
  };
}

const where = (id: string) => `where=${encodeURIComponent(JSON.stringify({ id: { eq: id } }))}`;

async function publishedArticle(title: string): Promise<string> {
  const res = await request(t.app).post('/api/articles').set(...editor).send({ title, status: 'published' }).expect(201);
  return String(res.body.id);
}

/** Waits until `to` has seen an event about a new marker record, so every earlier event has been delivered. */
async function settle(to: Reader): Promise<void> {
  await to.next(await publishedArticle('marker'));
}

it('a bulk PATCH that unpublishes an article reaches the public as a delete (left its view), and republishing as a create', async () => {
  const id = await publishedArticle('Takedown');
  const [anonymous, editors] = [await reader(), await reader(editorHeaders)];
  await request(t.app).patch(`/api/articles?${where(id)}`).set(...editor).send({ status: 'draft' }).expect(200);
  const left = await anonymous.next(id);
  expect(left).toEqual({ id: expect.any(String), type: 'delete', reason: 'left-view', collection: 'articles', docId: id, timestamp: expect.any(String) });
  // The editor still reads it: an update, as before.
  expect(await editors.next(id)).toMatchObject({ type: 'update', doc: { id, status: 'draft' }, updatedFields: ['status'] });

  await request(t.app).patch(`/api/articles?${where(id)}`).set(...editor).send({ status: 'published' }).expect(200);
  const entered = await anonymous.next(id);
  expect(entered).toMatchObject({ type: 'create', reason: 'entered-view', docId: id, doc: { id, title: 'Takedown', status: 'published' } });
  expect(entered).not.toHaveProperty('updatedFields');
  expect(await editors.next(id)).toMatchObject({ type: 'update', doc: { status: 'published' } });
});

it('a PATCH by id likewise; an update that leaves the view as it was is an update, or nothing to a reader who cannot see the record', async () => {
  const id = await publishedArticle('Story');
  const anonymous = await reader();
  await request(t.app).patch(`/api/articles/${id}`).set(...editor).send({ title: 'Story, corrected' }).expect(200);
  const updated = await anonymous.next(id);
  expect(updated).toMatchObject({ type: 'update', docId: id, doc: { title: 'Story, corrected' }, updatedFields: ['title'] });
  expect(updated).not.toHaveProperty('reason');

  await request(t.app).patch(`/api/articles/${id}`).set(...editor).send({ status: 'draft' }).expect(200);
  expect(await anonymous.next(id)).toMatchObject({ type: 'delete', reason: 'left-view', docId: id });
  // A draft's edits are nothing to the public: the next event it hears of is the marker's.
  await request(t.app).patch(`/api/articles/${id}`).set(...editor).send({ title: 'Draft edit' }).expect(200);
  await settle(anonymous);
  expect(anonymous.seen(id)).toEqual(['update', 'delete']);
  await request(t.app).patch(`/api/articles/${id}`).set(...editor).send({ status: 'published' }).expect(200);
  expect(await anonymous.next(id)).toMatchObject({ type: 'create', reason: 'entered-view', doc: { title: 'Draft edit' } });
});

itIf(capabilities().changeStreams, 'the server has no change streams')('an update made by another process (the change stream) that unpublishes or republishes reaches the public likewise', async () => {
  const id = await publishedArticle('Wire copy');
  const anonymous = await reader();
  const articles = t.connection.db!.collection('articles');
  await articles.updateOne({ _id: new Types.ObjectId(id) }, { $set: { status: 'draft', updatedAt: new Date() } });
  expect(await anonymous.next(id)).toMatchObject({ type: 'delete', reason: 'left-view', docId: id });
  await articles.updateOne({ _id: new Types.ObjectId(id) }, { $set: { status: 'published', updatedAt: new Date() } });
  expect(await anonymous.next(id)).toMatchObject({ type: 'create', reason: 'entered-view', docId: id, doc: { id, status: 'published' } });
});

it('readers with a rule that lets everything through get plain updates', async () => {
  const id = await publishedArticle('Open');
  const editors = await reader(editorHeaders);
  await request(t.app).patch(`/api/articles/${id}`).set(...editor).send({ status: 'draft' }).expect(200);
  const event = await editors.next(id);
  expect(event).toMatchObject({ type: 'update', updatedFields: ['status'] });
  expect(event).not.toHaveProperty('reason');
});
