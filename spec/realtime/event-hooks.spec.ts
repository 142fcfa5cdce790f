// Realtime event documents pass through the same read steps as every other record, per subscriber: read
// hooks run for each subscriber (with a context of their own), a field a subscriber may not read is absent
// from its `doc` and its `updatedFields`, hidden fields stay out whatever afterRead returns, a failing read
// hook drops the event for that subscriber only, and events keep their order.
import type { CollectionConfig } from '../../lib';
import { type SseClient, type WsClient, openSse, openWs } from './realtime-clients';
import { type RealtimeTestApp, admin, ann, createRealtimeTestApp, hostUser } from './realtime-test-app';

jest.setTimeout(30_000);

const afterReadCalls: Array<{ user: string | null; context: Record<string, unknown> }> = [];

const ARTICLES: CollectionConfig = {
  slug: 'articles',
  fields: {
    title: { type: 'text' },
    body: { type: 'text' },
    // Only admins may read it: absent from everyone else's events.
    notes: { type: 'text', access: { read: ({ user }) => user?.role === 'admin' } },
    internal: { type: 'text', hidden: true },
  },
  access: { read: () => true },
  hooks: {
    afterRead: [
      ({ doc, user, context }) => {
        afterReadCalls.push({ user: user?.id ?? null, context });
        context.seen = true;
        if (doc.title === 'explode') throw new Error('the afterRead hook exploded');
        // Tries to put the hidden field back: it is removed again after afterRead.
        return { ...doc, words: String(doc.body ?? '').split(' ').filter(Boolean).length, internal: 'leaked', viewer: user?.id ?? 'anonymous' };
      },
    ],
  },
};

let t: RealtimeTestApp;
const clients: Array<SseClient | WsClient> = [];

beforeAll(async () => {
  t = await createRealtimeTestApp(true, { collections: [ARTICLES] });
});
afterEach(() => {
  for (const client of clients.splice(0)) client.close();
});
afterAll(() => t.close());

async function sseOf(headers: Record<string, string> = {}): Promise<SseClient> {
  const sse = await openSse(t.server, '/api/sse?collections=articles', headers);
  expect(sse.status).toBe(200);
  clients.push(sse);
  return sse;
}

async function wsOf(headers: Record<string, string> = {}): Promise<WsClient> {
  const ws = await openWs(t.server, '/api/ws', { headers });
  clients.push(ws);
  ws.send({ type: 'subscribe', collections: ['articles'] });
  await ws.next((m) => m.type === 'subscribed');
  return ws;
}

async function nextSse(sse: SseClient, docId: string, type: string): Promise<Record<string, unknown>> {
  const frame = await sse.events.find((e) => {
    const event = JSON.parse(e.data) as Record<string, unknown>;
    return event.docId === docId && event.type === type;
  });
  return JSON.parse(frame.data) as Record<string, unknown>;
}

describe('realtime events through the read steps', () => {
  it('runs afterRead per subscriber and shows each only the fields it may read', async () => {
    const anonymous = await sseOf();
    const boss = await sseOf(hostUser(admin));
    const annStream = await sseOf(hostUser(ann));
    const anonymousWs = await wsOf();
    const id = (await t.api.local.create('articles', { title: 'hello', body: 'one two three', notes: 'editorial', internal: 'secret' })).id;

    const forAnonymous = await nextSse(anonymous, id, 'create');
    expect(forAnonymous.doc).toMatchObject({ id, title: 'hello', words: 3, viewer: 'anonymous' });
    expect(forAnonymous.doc).not.toHaveProperty('notes');
    expect(forAnonymous.doc).not.toHaveProperty('internal');

    const forAdmin = await nextSse(boss, id, 'create');
    expect(forAdmin.doc).toMatchObject({ id, notes: 'editorial', words: 3, viewer: admin.id });
    expect(forAdmin.doc).not.toHaveProperty('internal');

    const forAnn = await nextSse(annStream, id, 'create');
    expect(forAnn.doc).toMatchObject({ id, viewer: ann.id });
    expect(forAnn.doc).not.toHaveProperty('notes');

    const overWs = await anonymousWs.next((m) => m.docId === id && m.type === 'create');
    expect(overWs.doc).toMatchObject({ id, words: 3, viewer: 'anonymous' });
    expect(overWs.doc).not.toHaveProperty('notes');
    expect(overWs.doc).not.toHaveProperty('internal');
  });

  it('leaves a field a subscriber may not read out of updatedFields', async () => {
    const id = (await t.api.local.create('articles', { title: 'a', notes: 'n1' })).id;
    const anonymous = await sseOf();
    const boss = await sseOf(hostUser(admin));
    await t.api.local.update('articles', id, { title: 'b', notes: 'n2' });
    expect((await nextSse(anonymous, id, 'update')).updatedFields).toEqual(['title']);
    expect([...((await nextSse(boss, id, 'update')).updatedFields as string[])].sort()).toEqual(['notes', 'title']);
  });

  it('gives every subscriber\'s hooks a context of their own', async () => {
    afterReadCalls.length = 0;
    const one = await sseOf();
    const two = await sseOf(hostUser(admin));
    const id = (await t.api.local.create('articles', { title: 'ctx' })).id;
    await nextSse(one, id, 'create');
    await nextSse(two, id, 'create');
    // The local create's own answer, and one read per subscriber: three contexts, none shared.
    const contexts = afterReadCalls.map((call) => call.context);
    expect(contexts.length).toBeGreaterThanOrEqual(3);
    expect(new Set(contexts).size).toBe(contexts.length);
  });

  it('drops an event whose read hook fails for that subscriber, keeps the stream and the order of the rest', async () => {
    t.logs.length = 0;
    {
      const sse = await sseOf();
      // The local API's own answer runs afterRead too: the write stands, so the caller gets the id alone; the
      // event is published and dropped for the subscriber.
      await expect(t.api.local.create('articles', { title: 'explode' })).resolves.toEqual({ id: expect.any(String) });
      const later = (await t.api.local.create('articles', { title: 'after', body: 'x' })).id;
      const next = await sse.events.find((e) => (JSON.parse(e.data) as { type: string }).type === 'create');
      expect(JSON.parse(next.data)).toMatchObject({ docId: later, doc: { title: 'after', words: 1 } });
    }
    expect(t.logs.some((line) => line.includes('read hook failed') && line.includes('exploded'))).toBe(true);
  });

  it('keeps the order of events whose copies are made asynchronously', async () => {
    const sse = await sseOf();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await t.api.local.create('articles', { title: `n${i}` })).id);
    const seen: string[] = [];
    for (const id of ids) {
      const frame = await sse.events.find((e) => (JSON.parse(e.data) as { docId: string }).docId === id);
      seen.push(String((JSON.parse(frame.data) as { docId: string }).docId));
    }
    const order = sse.events.items.map((e) => (JSON.parse(e.data) as { docId: string }).docId).filter((id) => ids.includes(id));
    expect(order).toEqual(ids);
  });
});
