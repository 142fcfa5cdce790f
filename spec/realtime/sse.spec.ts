// GET /sse over a real socket: headers, event framing and payloads, per-reader access, errors before the
// stream opens, resume from Last-Event-ID, ?token=, heartbeats, compression, and dropping a stalled client.
import compression from 'compression';
import express from 'express';
import request from 'supertest';
import type { EventSourceMessage } from 'eventsource-parser';
import { asUser } from '../helpers/create-test-app';
import { PROBLEM, bearer, registerUser } from '../auth/auth-test-app';
import { type SseClient, closeServer, listen, openSse } from './realtime-clients';
import { type RealtimeTestApp, admin, ann, bob, createRealtimeTestApp, hostUser } from './realtime-test-app';

// Real sockets and a shared, busy machine: more than jest's default 5 s per test.
jest.setTimeout(30_000);

let t: RealtimeTestApp;
const open: SseClient[] = [];

async function sse(path: string, headers: Record<string, string> = {}): Promise<SseClient> {
  const client = await openSse(t.server, path, headers);
  open.push(client);
  return client;
}

const data = (e: EventSourceMessage) => JSON.parse(e.data) as Record<string, unknown>;
const about = (id: string) => (e: EventSourceMessage) => e.data.includes(`"docId":"${id}"`);

async function createNote(text: string, owner: string): Promise<string> {
  const res = await request(t.app).post('/api/notes').set(...asUser(admin)).send({ text, owner });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

async function createOpen(name: string): Promise<string> {
  const res = await request(t.app).post('/api/open').set(...asUser(admin)).send({ name });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

beforeAll(async () => {
  t = await createRealtimeTestApp({ maxSubscriptions: 3, heartbeatMs: 100 });
});
afterEach(() => {
  for (const client of open.splice(0)) client.close();
  expect(t.hostErrors).toEqual([]);
});
afterAll(() => t.close());

describe('GET /sse', () => {
  it('opens an unbuffered event stream', async () => {
    const client = await sse('/api/sse?collections=open');
    expect(client.status).toBe(200);
    expect(client.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(client.headers['cache-control']).toBe('no-cache, no-transform');
    expect(client.headers['x-accel-buffering']).toBe('no');
    expect(client.headers.connection).toBe('keep-alive');
  });

  it('answers HEAD with the headers and no stream', async () => {
    const res = await request(t.app).head('/api/sse?collections=open');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(t.api.realtime?.stats().sse).toBe(0);
  });

  it('sends create, update and delete events with the record exactly as REST shows it, hidden fields stripped', async () => {
    const client = await sse('/api/sse?collections=notes', hostUser(admin));
    const id = await createNote('hello', ann.id);
    const created = await client.next((e) => e.event === 'create' && about(id)(e));
    const record = (await request(t.app).get(`/api/notes/${id}`).set(...asUser(admin))).body;
    expect(data(created)).toEqual({ id: created.id, type: 'create', collection: 'notes', docId: id, doc: record, timestamp: expect.any(String) });
    expect(created.data).not.toContain('top-secret-value');
    expect(created.id).toMatch(/^[0-9a-f]{8}-\d+$/);

    expect((await request(t.app).patch(`/api/notes/${id}`).set(...asUser(admin)).send({ text: 'changed' })).status).toBe(200);
    const updated = await client.next((e) => e.event === 'update' && about(id)(e));
    expect(data(updated)).toMatchObject({ type: 'update', docId: id, updatedFields: ['text'], doc: { id, text: 'changed' } });
    expect(updated.data).not.toContain('top-secret-value');

    expect((await request(t.app).delete(`/api/notes/${id}`).set(...asUser(admin))).status).toBe(200);
    const deleted = await client.next((e) => e.event === 'delete' && about(id)(e));
    expect(data(deleted)).toEqual({ id: deleted.id, type: 'delete', collection: 'notes', docId: id, timestamp: expect.any(String) });

    expect((await request(t.app).post(`/api/notes/${id}/restore`).set(...asUser(admin))).status).toBe(200);
    // Back in the reader's view: a create, marked as such.
    const restored = await client.next((e) => e.event === 'create' && about(id)(e) && data(e).reason === 'entered-view');
    expect(data(restored)).toMatchObject({ type: 'create', reason: 'entered-view', doc: { id, deletedAt: null } });
    // Ids increase within the run.
    const seq = (e: EventSourceMessage) => Number(e.id!.split('-')[1]);
    expect(seq(created) < seq(updated) && seq(updated) < seq(deleted) && seq(deleted) < seq(restored)).toBe(true);
  });

  it('names the record by its id as stored, whatever the case of the hex digits in the path', async () => {
    const client = await sse('/api/sse?collections=notes', hostUser(admin));
    const id = await createNote('case', ann.id);
    const upper = id.toUpperCase();
    const mentions = (type: string) => (e: EventSourceMessage) => e.event === type && e.data.toLowerCase().includes(`"docid":"${id}"`);
    expect((await request(t.app).patch(`/api/notes/${upper}`).set(...asUser(admin)).send({ text: 'changed' })).status).toBe(200);
    expect(data(await client.next(mentions('update'))).docId).toBe(id);
    expect((await request(t.app).delete(`/api/notes/${upper}`).set(...asUser(admin))).status).toBe(200);
    expect(data(await client.next(mentions('delete'))).docId).toBe(id);
    expect((await request(t.app).post(`/api/notes/${upper}/restore`).set(...asUser(admin))).status).toBe(200);
    const restored = await client.next((e) => mentions('create')(e) && data(e).reason === 'entered-view');
    expect(data(restored).docId).toBe(id);
    const seen = client.events.items.length;
    expect((await request(t.app).delete(`/api/notes/${upper}?permanent=true`).set(...asUser(admin))).status).toBe(200);
    expect(data(await client.events.find(mentions('delete'), seen)).docId).toBe(id);
  });

  it('one event per record of a batch create', async () => {
    const client = await sse('/api/sse?collections=open');
    const res = await request(t.app).post('/api/open').set(...asUser(admin)).send({ data: [{ name: 'b1' }, { name: 'b2' }] });
    expect(res.status).toBe(201);
    const ids = res.body.data.map((r: { id: string }) => r.id);
    for (const id of ids) await client.next(about(id));
  });

  it('delivers an event only to readers whose access covers the record, deletes included', async () => {
    const annStream = await sse('/api/sse?collections=notes', hostUser(ann));
    const bobStream = await sse('/api/sse?collections=notes', hostUser(bob));
    const annNote = await createNote('for ann', ann.id);
    const bobNote = await createNote('for bob', bob.id);
    await annStream.next(about(annNote));
    await bobStream.next(about(bobNote));

    // Handed to bob, then deleted: it leaves ann's view (a delete) and enters bob's (a create); the delete
    // reaches bob, who could read it before it went, and not ann.
    expect((await request(t.app).patch(`/api/notes/${annNote}`).set(...asUser(admin)).send({ owner: bob.id })).status).toBe(200);
    expect((await request(t.app).delete(`/api/notes/${annNote}`).set(...asUser(admin))).status).toBe(200);
    await bobStream.next((e) => e.event === 'delete' && about(annNote)(e) && data(e).reason === undefined);
    const fence = await createNote('fence', ann.id);
    await annStream.next(about(fence));

    expect(bobStream.events.items.filter(about(annNote)).map((e) => [e.event, data(e).reason])).toEqual([['create', 'entered-view'], ['delete', undefined]]);
    expect(annStream.events.items.filter(about(bobNote))).toEqual([]);
    expect(annStream.events.items.filter(about(annNote)).map((e) => [e.event, data(e).reason])).toEqual([['create', undefined], ['delete', 'left-view']]);
  });

  it('denies events whose access constraint runs through a relationship (it cannot be checked in memory)', async () => {
    const client = await sse('/api/sse?collections=links,open', hostUser(ann));
    const target = await createOpen('public');
    const link = await request(t.app).post('/api/links').set(...asUser(admin)).send({ label: 'l', target });
    expect(link.status).toBe(201);
    // REST shows it (the constraint holds)...
    expect((await request(t.app).get(`/api/links/${link.body.id}`).set(...asUser(ann))).status).toBe(200);
    const fence = await createOpen('fence');
    await client.next(about(fence));
    // ...but realtime cannot evaluate it per event, and denies rather than leaks.
    expect(client.events.items.filter(about(link.body.id))).toEqual([]);
  });

  it.each([
    ['no collections', '/api/sse', 400, 'required'],
    ['an empty list', '/api/sse?collections=,', 400, 'required'],
    ['an unknown collection', '/api/sse?collections=open,nope', 400, 'unknown_collection'],
    ['more than maxSubscriptions', '/api/sse?collections=open,notes,links,users', 400, 'too_many_subscriptions'],
  ])('answers %s with a problem before the stream opens', async (_name, path, status, code) => {
    const client = await sse(path, hostUser(admin));
    expect(client.status).toBe(status);
    expect(client.headers['content-type']).toMatch(PROBLEM);
    expect(JSON.parse(client.body).errors[0].code).toBe(code);
  });

  it('answers 401 to an anonymous reader and 403 to a user the rule refuses, naming nothing else', async () => {
    const anonymous = await sse('/api/sse?collections=notes');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers['content-type']).toMatch(PROBLEM);
    const refused = await sse('/api/sse?collections=open,secrets', hostUser(ann));
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body)).toMatchObject({ status: 403, code: 'forbidden' });
  });

  it('replays events missed since Last-Event-ID, and says reset when they cannot be', async () => {
    const first = await sse('/api/sse?collections=open');
    const a = await createOpen('a');
    const seen = await first.next(about(a));
    first.close();
    const b = await createOpen('b');
    const c = await createOpen('c');

    const resumed = await sse('/api/sse?collections=open', { 'Last-Event-ID': seen.id! });
    await resumed.next(about(c));
    const ids = resumed.events.items.filter((e) => e.event === 'create').map((e) => data(e).docId);
    expect(ids.slice(0, 2)).toEqual([b, c]);
    expect(resumed.events.items.some((e) => e.event === 'reset')).toBe(false);

    for (const garbage of ['garbage', 'x'.repeat(5000), '%00\u00ff']) {
      const fresh = await sse('/api/sse?collections=open', { 'Last-Event-ID': garbage });
      expect(fresh.status).toBe(200);
      await fresh.next((e) => e.event === 'reset');
      const d = await createOpen('after reset');
      await fresh.next(about(d));
      expect(fresh.events.items.some(about(a))).toBe(false);
    }
  });

  it('sends heartbeat comments', async () => {
    const client = await sse('/api/sse?collections=open');
    await client.comments.find((c) => c === 'heartbeat');
  });

  it('accepts ?token= (EventSource cannot send headers) and refuses a bad one or one beside a header', async () => {
    const user = await registerUser(t);
    const client = await sse(`/api/sse?collections=posts&token=${encodeURIComponent(user.accessToken)}`);
    expect(client.status).toBe(200);
    const post = await request(t.app).post('/api/posts').set(...bearer(user.accessToken)).send({ title: 'live' });
    expect(post.status).toBe(201);
    await client.next(about(post.body.id));

    const bad = await sse('/api/sse?collections=posts&token=not-a-token');
    expect(bad.status).toBe(401);
    expect(JSON.parse(bad.body).code).toBe('invalid_token');
    const both = await sse(`/api/sse?collections=posts&token=${user.accessToken}`, { Authorization: `Bearer ${user.accessToken}` });
    expect(both.status).toBe(401);
    const header = await sse('/api/sse?collections=posts', { Authorization: 'Bearer nonsense' });
    expect(header.status).toBe(401);
    expect(t.logs.join('\n')).not.toContain(user.accessToken);
  });

  it('refuses a repeated ?token= whichever comes first, as it refuses two Authorization headers', async () => {
    const user = await registerUser(t);
    for (const query of [`token=${user.accessToken}&token=garbage`, `token=garbage&token=${user.accessToken}`, `token=${user.accessToken}&token=${user.accessToken}`]) {
      const refused = await sse(`/api/sse?collections=posts&${query}`);
      expect(refused.status).toBe(401);
      expect(refused.headers['content-type']).toMatch(PROBLEM);
      expect(JSON.parse(refused.body).code).toBe('invalid_token');
    }
  });

  it('applies API-key scopes: a key without read scope gets 403', async () => {
    const user = await registerUser(t);
    const writeOnly = await request(t.app).post('/api/users/api-keys').set(...bearer(user.accessToken)).send({ name: 'w', scopes: ['write'] });
    expect(writeOnly.status).toBe(201);
    const refused = await sse('/api/sse?collections=posts', { 'X-API-Key': writeOnly.body.apiKey.key });
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body).code).toBe('insufficient_scope');
    const reader = await request(t.app).post('/api/users/api-keys').set(...bearer(user.accessToken)).send({ name: 'r', scopes: ['read'] });
    const allowed = await sse(`/api/sse?collections=posts&token=${reader.body.apiKey.key}`);
    expect(allowed.status).toBe(200);
  });
});

describe('behind the host\'s compression middleware', () => {
  it('still delivers each event at once, uncompressed', async () => {
    const host = express();
    host.use(compression());
    host.use('/api', t.api);
    const server = await listen(host);
    try {
      const client = await openSse(server, '/api/sse?collections=open', { 'Accept-Encoding': 'gzip' });
      expect(client.status).toBe(200);
      expect(client.headers['content-encoding']).toBeUndefined();
      const id = await createOpen('compressed?');
      await client.next(about(id));
      client.close();
    } finally {
      await closeServer(server);
    }
  });
});
