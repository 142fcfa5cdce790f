// The headline guarantee of drafts: what a working copy holds is unreachable through every public surface.
// Working copies carrying a unique marker (a record created as a draft only, a published record's pending
// changes made over REST and through api.local, a global's draft, a published write made while a draft is
// pending) are written while SSE subscribers and a webhook receiver listen; then every public surface is
// walked (list, get, count, search, population from another collection, relation filters, the response
// cache, realtime events, webhook deliveries and their log, the OpenAPI document, api.local's reads) and
// the marker must appear in none, for anonymous callers and for an editor who may read drafts alike. The
// draft routes themselves show it, so the walk is not vacuous.
import type http from 'node:http';
import { randomBytes } from 'node:crypto';
import { Types } from 'mongoose';
import request from 'supertest';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';
import { capabilities, describeIf } from '../helpers/test-db';
import { until } from '../helpers/eventually';
import { type SseClient, closeServer, listen, openSse } from '../realtime/realtime-clients';
import { type Receiver, startReceiver } from '../webhooks/receivers';

jest.setTimeout(60_000);

const MARKER = `draftmarker${randomBytes(6).toString('hex')}`;
const editor = asUser({ id: 'e1', role: 'editor' });
const editorHeaders = { 'X-Test-User': JSON.stringify({ id: 'e1', role: 'editor' }) };

describeIf(capabilities().changeStreams, 'the server has no change streams (webhooks read them)')('a draft marker', () => {
  let t: TestApp;
  let server: http.Server;
  let receiver: Receiver;
  const streams: SseClient[] = [];
  const ids: Record<string, string> = {};

  const api = () => request(t.app);
  const isEditor = ({ user }: { user: { role?: unknown } | null }) => user?.role === 'editor';

  /** Fails naming where the marker showed up. */
  const expectNoMarker = (where: string, value: unknown) => {
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    if (text.includes(MARKER)) throw new Error(`the draft marker leaked through ${where}: ${text.slice(0, 500)}`);
  };

  beforeAll(async () => {
    receiver = await startReceiver();
    t = await createTestApp({
      collections: [
        {
          slug: 'articles',
          versions: { drafts: true },
          cache: { ttl: 60 },
          fields: { title: { type: 'text', required: true }, body: { type: 'text' }, tag: { type: 'text' } },
          access: { read: () => true, create: isEditor, update: isEditor, delete: isEditor, publish: isEditor, readDrafts: isEditor },
        },
        {
          slug: 'comments',
          cache: { ttl: 60 },
          fields: { text: { type: 'text' }, article: { type: 'relationship', relationTo: 'articles' } },
          access: { read: () => true, create: isEditor, update: isEditor, delete: isEditor },
        },
      ],
      globals: [{ slug: 'site', versions: { drafts: true }, fields: { name: { type: 'text' } }, access: { read: () => true, update: isEditor, publish: isEditor, readDrafts: isEditor } }],
      realtime: true,
      webhooks: { endpoints: [{ url: receiver.url, secret: receiver.secret, events: ['*'] }], retry: { delays: [50] } },
    });
    server = await listen(t.app);
    t.api.attach(server);
    // Subscribers listening before any draft is written: an anonymous one and an editor.
    streams.push(await openSse(server, '/api/sse?collections=articles,comments'));
    streams.push(await openSse(server, '/api/sse?collections=articles,comments', editorHeaders));
    for (const stream of streams) expect(stream.status).toBe(200);

    // Published records, read once so the response cache holds them before any draft exists.
    ids.published = (await api().post('/api/articles').set(...editor).send({ title: 'Public title', body: 'public body', tag: 'news' }).expect(201)).body.id;
    ids.local = (await t.api.local.create('articles', { title: 'Local public', body: 'local body', tag: 'news' })).id;
    ids.comment = (await api().post('/api/comments').set(...editor).send({ text: 'a comment', article: ids.published }).expect(201)).body.id;
    await api().get('/api/articles').expect(200);
    await api().get(`/api/articles/${ids.published}`).expect(200);
    await api().get(`/api/comments/${ids.comment}?depth=1`).expect(200);
    await api().patch('/api/globals/site').set(...editor).send({ name: 'Public site' }).expect(200);
    await api().get('/api/globals/site').expect(200);

    // The drafts, each holding the marker.
    ids.draftOnly = (await api().post('/api/articles?draft=true').set(...editor).send({ title: `${MARKER} title`, body: MARKER, tag: 'news' }).expect(201)).body.id;
    await api().patch(`/api/articles/${ids.published}/draft`).set(...editor).send({ title: `${MARKER} pending`, body: `${MARKER} body` }).expect(200);
    await t.api.local.saveDraft('articles', ids.local, { body: `${MARKER} local` });
    await api().patch('/api/globals/site/draft').set(...editor).send({ name: `${MARKER} site` }).expect(200);
    // Published writes while drafts are pending: the working copy follows them, never the other way round.
    await api().patch(`/api/articles/${ids.published}`).set(...editor).send({ tag: 'updated' }).expect(200);
    await api().patch('/api/articles?where[tag][eq]=news').set(...editor).send({ tag: 'bulk' }).expect(200);
    // A comment pointing at the never-published record (written around the router's relation check).
    const { insertedId } = await t.connection.collection('comments').insertOne({ text: 'points at a draft', article: new Types.ObjectId(ids.draftOnly), _rev: 1, createdAt: new Date(), updatedAt: new Date() });
    ids.commentOnDraft = insertedId.toHexString();
    // The last published write: once subscribers and the receiver have it, they have had every event before it.
    ids.sentinel = (await api().post('/api/articles').set(...editor).send({ title: 'sentinel' }).expect(201)).body.id;
  });

  afterAll(async () => {
    for (const stream of streams) stream.close();
    if (server) await closeServer(server);
    await t?.close();
    await receiver?.close();
  });

  it('is there to find: the draft routes show it to an editor', async () => {
    expect(JSON.stringify((await api().get(`/api/articles/${ids.draftOnly}/draft`).set(...editor).expect(200)).body)).toContain(MARKER);
    // The pending draft followed the published writes made since (tag), and kept its own changes.
    expect((await api().get(`/api/articles/${ids.published}/draft`).set(...editor).expect(200)).body).toMatchObject({ title: `${MARKER} pending`, tag: 'updated', _status: 'changed' });
    expect(JSON.stringify((await api().get('/api/articles?draft=true').set(...editor).expect(200)).body)).toContain(MARKER);
    expect(JSON.stringify((await api().get('/api/globals/site/draft').set(...editor).expect(200)).body)).toContain(MARKER);
  });

  for (const [who, headers] of [
    ['an anonymous caller', [] as string[]],
    ['an editor who may read drafts', editor as unknown as string[]],
  ] as const) {
    const as = (req: request.Test) => (headers.length ? req.set(headers[0], headers[1]) : req);

    it(`never reaches ${who} through lists, gets, counts or search`, async () => {
      const list = await as(api().get('/api/articles?perPage=100')).expect(200);
      expectNoMarker('the list', list.body);
      expectNoMarker('the list headers', list.headers);
      expect(list.body.data.map((r: { id: string }) => r.id)).not.toContain(ids.draftOnly);
      expectNoMarker('a list filtered on the marker', (await as(api().get(`/api/articles?where[title][like]=${MARKER}`)).expect(200)).body);
      expect((await as(api().get(`/api/articles?where[body][like]=${MARKER}`)).expect(200)).body.data).toEqual([]);
      expect((await as(api().get(`/api/articles/count?where[title][like]=${MARKER}`)).expect(200)).body).toEqual({ total: 0 });
      expect((await as(api().get('/api/articles/count')).expect(200)).body).toEqual({ total: 3 });
      const search = await as(api().get(`/api/articles?search=${MARKER}`)).expect(200);
      expect(search.body.data).toEqual([]);
      // The same conditions find published text: the empty answers above are not a broken search.
      expect((await as(api().get('/api/articles?search=public')).expect(200)).body.data).toHaveLength(2);
      expect((await as(api().get('/api/articles/count?where[title][like]=public')).expect(200)).body).toEqual({ total: 2 });
      await as(api().get(`/api/articles/${ids.draftOnly}`)).expect(404);
      for (const id of [ids.published, ids.local]) {
        const one = await as(api().get(`/api/articles/${id}`)).expect(200);
        expectNoMarker('a get', one.body);
        expectNoMarker('a get (headers)', one.headers);
      }
      const published = (await as(api().get(`/api/articles/${ids.published}`)).expect(200)).body;
      expect(published).toMatchObject({ title: 'Public title', body: 'public body', tag: 'updated' });
      expectNoMarker('the global', (await as(api().get('/api/globals/site')).expect(200)).body);
      expectNoMarker('a sorted, selected list', (await as(api().get('/api/articles?fields=title,body&sort=-title')).expect(200)).body);
      expectNoMarker('the local record', (await as(api().get(`/api/articles/${ids.local}`)).expect(200)).body);
    });

    it(`never reaches ${who} through population or relation filters`, async () => {
      const comment = await as(api().get(`/api/comments/${ids.comment}?depth=1`)).expect(200);
      expectNoMarker('population', comment.body);
      expect(comment.body.article).toMatchObject({ id: ids.published, title: 'Public title' });
      const onDraft = await as(api().get(`/api/comments/${ids.commentOnDraft}?depth=1`)).expect(200);
      expectNoMarker('population of a never-published record', onDraft.body);
      // A relation to a record not published stays an id (as one the caller cannot read does).
      expect(onDraft.body.article).toBe(ids.draftOnly);
      expectNoMarker('a populated list', (await as(api().get('/api/comments?depth=1')).expect(200)).body);
      expect((await as(api().get(`/api/comments?where[article.title][like]=${MARKER}`)).expect(200)).body.data).toEqual([]);
      expect((await as(api().get(`/api/comments/count?where[article.body][like]=${MARKER}`)).expect(200)).body).toEqual({ total: 0 });
      expect((await as(api().get(`/api/comments?where[article.title][eq]=Public title`)).expect(200)).body.data).toHaveLength(1);
    });
  }

  it('never reaches the response cache: cached public answers stay the published ones, a draft list is never served from it', async () => {
    const cached = await api().get(`/api/articles/${ids.published}`).expect(200);
    expectNoMarker('a cached get', cached.body);
    const again = await api().get(`/api/articles/${ids.published}`).expect(200);
    expect(again.headers['x-cache']).toBe('HIT');
    expectNoMarker('a cache hit', again.body);
    // The editor's draft list at a URL, then the same URL anonymously: a 401, not the editor's answer.
    await api().get('/api/articles?draft=true&limit=5').set(...editor).expect(200);
    const anonymous = await api().get('/api/articles?draft=true&limit=5');
    expect(anonymous.status).toBe(401);
    expectNoMarker('the draft list URL, anonymously', anonymous.body);
    expectNoMarker('the draft list URL, anonymously (headers)', anonymous.headers);
  });

  it('never reaches realtime subscribers', async () => {
    for (const stream of streams) {
      await stream.next((e) => e.data.includes(ids.sentinel), 15_000);
      expectNoMarker('a realtime event', stream.events.items);
      const docIds = stream.events.items.map((e) => (JSON.parse(e.data) as { docId?: string }).docId);
      expect(docIds).not.toContain(ids.draftOnly);
    }
  });

  it('never reaches webhook receivers nor the delivery log', async () => {
    await until(() => receiver.received.some((r) => r.body.includes(ids.sentinel)), 20_000, 'the sentinel delivery');
    expect(receiver.received.length).toBeGreaterThan(3);
    for (const delivery of receiver.received) expectNoMarker('a webhook delivery', delivery.body);
    // No event about the never-published record (the comment pointing at it names its id, as its own field).
    const articleEvents = receiver.received.map((r) => r.body).filter((body) => body.includes('"collection":"articles"'));
    expect(articleEvents.join('\n')).not.toContain(ids.draftOnly);
    expect(receiver.received.map((r) => r.body).join('\n')).not.toContain('"globals');
    // Await the sentinel's entry in the log too, then read the whole log.
    const log = await until(async () => {
      const page = await t.api.webhooks!.list({ limit: 100 });
      return page.data.some((d) => d.recordId === ids.sentinel) ? page : undefined;
    });
    expectNoMarker('the delivery log', log);
  });

  it('never reaches the OpenAPI document nor api.local reads of published records', async () => {
    const doc = await api().get('/api/docs/openapi.json').expect(200);
    expectNoMarker('the OpenAPI document', doc.text);
    expectNoMarker('api.local.find', await t.api.local.find('articles', { limit: 100 }));
    expectNoMarker('api.local.count', await t.api.local.count('articles', { where: { body: { like: MARKER } } }));
    await expect(t.api.local.findById('articles', ids.draftOnly)).rejects.toMatchObject({ status: 404 });
    expectNoMarker('api.local.findGlobal', await t.api.local.findGlobal('site'));
  });
});
