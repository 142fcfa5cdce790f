// The working copies of a drafts collection over REST: creating a record as a draft only, reading and saving
// a working copy (statuses, ETag and If-Match, field access, hooks told `draft: true`, required and unique
// waiting for publish), discarding it, the draft list, the publish rule on writes to the published record,
// PATCH/DELETE of the published record reaching the working copy, draft routes on a collection without
// drafts (404 saying so), and a global's working copy.
import request from 'supertest';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';

const editor = asUser({ id: 'e1', role: 'editor' });
const writer = asUser({ id: 'w1', role: 'writer' });
const reader = asUser({ id: 'r1', role: 'reader' });

const hookDrafts: Array<{ hook: string; draft: unknown }> = [];

let t: TestApp;

beforeAll(async () => {
  const canEdit = ({ user }: { user: { role?: unknown } | null }) => user?.role === 'editor' || user?.role === 'writer';
  t = await createTestApp({
    collections: [
      {
        slug: 'articles',
        versions: { drafts: true },
        fields: {
          title: { type: 'text', required: true },
          code: { type: 'text', unique: true },
          body: { type: 'text' },
          notes: { type: 'text', hidden: true },
          locked: { type: 'text', access: { update: ({ user }) => user?.role === 'editor' } },
        },
        access: {
          read: () => true,
          create: canEdit,
          update: canEdit,
          delete: canEdit,
          publish: ({ user }) => user?.role === 'editor',
          readDrafts: canEdit,
        },
        hooks: {
          beforeChange: [({ draft }) => void hookDrafts.push({ hook: 'beforeChange', draft })],
          afterChange: [({ draft }) => void hookDrafts.push({ hook: 'afterChange', draft })],
        },
      },
      { slug: 'plain', fields: { title: { type: 'text' } }, access: { read: () => true, create: () => true, update: () => true, delete: () => true } },
    ],
    globals: [
      { slug: 'site', versions: { drafts: true }, fields: { name: { type: 'text' } }, access: { read: () => true, update: canEdit, publish: ({ user }) => user?.role === 'editor', readDrafts: canEdit } },
      { slug: 'footer', fields: { text: { type: 'text' } }, access: { read: () => true, update: () => true } },
    ],
  });
});

afterAll(async () => {
  await t?.close();
});

const api = () => request(t.app);

async function newDraft(data: Record<string, unknown>): Promise<string> {
  const res = await api().post('/api/articles?draft=true').set(...writer).send(data);
  expect(res.status).toBe(201);
  return res.body.id as string;
}

async function newPublished(data: Record<string, unknown>): Promise<string> {
  const res = await api().post('/api/articles').set(...editor).send(data);
  expect(res.status).toBe(201);
  return res.body.id as string;
}

describe('a record created as a draft', () => {
  it('answers 201 with its working copy and the Location of its draft, and exists nowhere public', async () => {
    const res = await api().post('/api/articles?draft=true').set(...writer).send({ title: 'first draft' });
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`/api/articles/${res.body.id}/draft`);
    expect(res.body).toMatchObject({ id: expect.any(String), title: 'first draft', _status: 'draft' });
    await api().get(`/api/articles/${res.body.id}`).expect(404);
    const list = await api().get('/api/articles').expect(200);
    expect(list.body.data.map((r: { id: string }) => r.id)).not.toContain(res.body.id);
  });

  it('waits for publish with required and unique: a draft may lack its title and share a code', async () => {
    await newPublished({ title: 'taken', code: 'same-code' });
    const id = await newDraft({ code: 'same-code' });
    const draft = await api().get(`/api/articles/${id}/draft`).set(...writer).expect(200);
    expect(draft.body).toMatchObject({ id, title: null, code: 'same-code', _status: 'draft' });
  });

  it('still checks types and unknown fields (400), and field access (403)', async () => {
    const bad = await api().post('/api/articles?draft=true').set(...writer).send({ title: 5, nope: 1 });
    expect(bad.status).toBe(400);
    const id = await newDraft({ title: 'x' });
    await api().patch(`/api/articles/${id}/draft`).set(...writer).send({ locked: 'no' }).expect(403);
    await api().patch(`/api/articles/${id}/draft`).set(...writer).send({ title: { not: 'text' } }).expect(400);
  });

  it('tells the hooks draft: true on working-copy writes, and nothing on published writes', async () => {
    hookDrafts.length = 0;
    await newDraft({ title: 'hooked' });
    expect(hookDrafts).toEqual([
      { hook: 'beforeChange', draft: true },
      { hook: 'afterChange', draft: true },
    ]);
    hookDrafts.length = 0;
    await newPublished({ title: 'published hooked' });
    expect(hookDrafts).toEqual([
      { hook: 'beforeChange', draft: undefined },
      { hook: 'afterChange', draft: undefined },
    ]);
  });
});

describe('GET /<slug>/:id/draft', () => {
  it('needs readDrafts: 401 anonymous, 403 without it, never the published record', async () => {
    const id = await newPublished({ title: 'only-published-title' });
    const anon = await api().get(`/api/articles/${id}/draft`);
    expect(anon.status).toBe(401);
    expect(JSON.stringify(anon.body)).not.toContain('only-published-title');
    const denied = await api().get(`/api/articles/${id}/draft`).set(...reader);
    expect(denied.status).toBe(403);
    expect(JSON.stringify(denied.body)).not.toContain('only-published-title');
  });

  it('answers private, no-store, and statuses published then changed', async () => {
    const id = await newPublished({ title: 'v1' });
    const same = await api().get(`/api/articles/${id}/draft`).set(...writer).expect(200);
    expect(same.headers['cache-control']).toBe('private, no-store');
    expect(same.body).toMatchObject({ id, title: 'v1', _status: 'published' });
    await api().patch(`/api/articles/${id}/draft`).set(...writer).send({ title: 'v2' }).expect(200);
    const changed = await api().get(`/api/articles/${id}/draft`).set(...writer).expect(200);
    expect(changed.body).toMatchObject({ title: 'v2', _status: 'changed' });
    // The published record is untouched.
    const published = await api().get(`/api/articles/${id}`).expect(200);
    expect(published.body.title).toBe('v1');
  });

  it('404 for a record with neither a working copy nor a published record', async () => {
    await api().get('/api/articles/0123456789abcdef01234567/draft').set(...writer).expect(404);
  });

  it('falls back to the published record of a record stored before drafts (no working copy yet)', async () => {
    const { insertedId } = await t.connection.collection('articles').insertOne({ title: 'legacy', _rev: 1, createdAt: new Date(), updatedAt: new Date() });
    const id = insertedId.toHexString();
    const res = await api().get(`/api/articles/${id}/draft`).set(...writer).expect(200);
    expect(res.body).toMatchObject({ id, title: 'legacy', _status: 'published' });
    // Its ETag is what If-Match of the first draft save is compared with.
    const saved = await api().patch(`/api/articles/${id}/draft`).set(...writer).set('If-Match', res.headers.etag).send({ title: 'legacy edited' });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ title: 'legacy edited', _status: 'changed' });
    await api().get(`/api/articles/${id}/draft`).set(...writer).expect(200).expect((r) => expect(r.body.title).toBe('legacy edited'));
  });
});

describe('PATCH /<slug>/:id/draft', () => {
  it('takes If-Match with the draft ETag: the GET tag saves, a stale one is 412', async () => {
    const id = await newDraft({ title: 'a' });
    const got = await api().get(`/api/articles/${id}/draft`).set(...writer).expect(200);
    const saved = await api().patch(`/api/articles/${id}/draft`).set(...writer).set('If-Match', got.headers.etag).send({ title: 'b' });
    expect(saved.status).toBe(200);
    expect(saved.headers.etag).toBeDefined();
    await api().patch(`/api/articles/${id}/draft`).set(...writer).set('If-Match', got.headers.etag).send({ title: 'c' }).expect(412);
    // The save's ETag is the next GET's.
    const again = await api().get(`/api/articles/${id}/draft`).set(...writer).expect(200);
    expect(again.headers.etag).toBe(saved.headers.etag);
  });

  it('leaves the published record and other readers alone; a hidden field never shows', async () => {
    const { id } = await t.api.local.create('articles', { title: 'pub', notes: 'x' });
    const saved = await api().patch(`/api/articles/${id}/draft`).set(...writer).send({ body: 'draft body' }).expect(200);
    expect(saved.body.notes).toBeUndefined();
    expect((await api().get(`/api/articles/${id}`).expect(200)).body.body).toBeNull();
  });
});

describe('DELETE /<slug>/:id/draft', () => {
  it('drops unpublished changes: the working copy is the published record again', async () => {
    const id = await newPublished({ title: 'keep' });
    await api().patch(`/api/articles/${id}/draft`).set(...writer).send({ title: 'drop me', body: 'gone' }).expect(200);
    const res = await api().delete(`/api/articles/${id}/draft`).set(...writer).expect(200);
    expect(res.body).toMatchObject({ id, title: 'keep', body: null, _status: 'published' });
    const draft = await api().get(`/api/articles/${id}/draft`).set(...writer).expect(200);
    expect(draft.body).toMatchObject({ title: 'keep', body: null, _status: 'published' });
  });

  it('deletes a never-published record', async () => {
    const id = await newDraft({ title: 'never' });
    const res = await api().delete(`/api/articles/${id}/draft`).set(...writer).expect(200);
    expect(res.body).toEqual({ deleted: true });
    await api().get(`/api/articles/${id}/draft`).set(...writer).expect(404);
  });
});

describe('GET /<slug>?draft=true', () => {
  it('lists working copies with their status and every list parameter; needs readDrafts', async () => {
    const published = await newPublished({ title: 'list-pub', body: 'listme' });
    const changed = await newPublished({ title: 'list-changed', body: 'listme' });
    await api().patch(`/api/articles/${changed}/draft`).set(...writer).send({ title: 'list-changed-2' }).expect(200);
    const draft = await newDraft({ title: 'list-draft', body: 'listme' });
    const res = await api().get('/api/articles?draft=true&where[body][eq]=listme&sort=title').set(...writer).expect(200);
    expect(res.headers['cache-control']).toBe('private, no-store');
    expect(res.body.data.map((r: { id: string; _status: string }) => [r.id, r._status])).toEqual([
      [changed, 'changed'],
      [draft, 'draft'],
      [published, 'published'],
    ]);
    await api().get('/api/articles?draft=true').expect(401);
    await api().get('/api/articles?draft=true').set(...reader).expect(403);
    await api().get('/api/articles?draft=maybe').set(...writer).expect(400);
  });
});

describe('writes to the published record of a drafts collection', () => {
  it('POST, PATCH, DELETE and bulk writes need publish besides their own rule', async () => {
    await api().post('/api/articles').set(...writer).send({ title: 'no' }).expect(403);
    const id = await newPublished({ title: 'guarded' });
    await api().patch(`/api/articles/${id}`).set(...writer).send({ title: 'no' }).expect(403);
    await api().delete(`/api/articles/${id}`).set(...writer).expect(403);
    await api().patch('/api/articles?where[title][eq]=guarded').set(...writer).send({ body: 'no' }).expect(403);
    await api().delete('/api/articles?where[title][eq]=guarded').set(...writer).expect(403);
    expect((await api().get(`/api/articles/${id}`).expect(200)).body.title).toBe('guarded');
  });

  it('a PATCH of the published record reaches the working copy; other pending draft changes stay', async () => {
    const id = await newPublished({ title: 'orig', body: 'orig body' });
    await api().patch(`/api/articles/${id}/draft`).set(...writer).send({ body: 'pending body' }).expect(200);
    await api().patch(`/api/articles/${id}`).set(...editor).send({ title: 'fixed typo' }).expect(200);
    const draft = await api().get(`/api/articles/${id}/draft`).set(...writer).expect(200);
    expect(draft.body).toMatchObject({ title: 'fixed typo', body: 'pending body', _status: 'changed' });
  });

  it('a bulk PATCH reaches every working copy; DELETE removes the working copy too', async () => {
    const a = await newPublished({ title: 'bulk-a', body: 'bulk' });
    const b = await newPublished({ title: 'bulk-b', body: 'bulk' });
    await api().patch('/api/articles?where[body][eq]=bulk').set(...editor).send({ code: null, body: 'bulk2' }).expect(200);
    for (const id of [a, b]) expect((await api().get(`/api/articles/${id}/draft`).set(...writer).expect(200)).body).toMatchObject({ body: 'bulk2', _status: 'published' });
    await api().delete(`/api/articles/${a}`).set(...editor).expect(200);
    await api().get(`/api/articles/${a}/draft`).set(...writer).expect(404);
    expect(await t.connection.collection('articles_drafts').countDocuments({ _id: (await t.connection.collection('articles_drafts').findOne({ title: 'bulk-b' }))?._id })).toBe(1);
    await api().delete('/api/articles?where[title][eq]=bulk-b').set(...editor).expect(200);
    expect(await t.connection.collection('articles_drafts').countDocuments({ title: { $in: ['bulk-a', 'bulk-b'] } })).toBe(0);
  });
});

describe('a collection without drafts', () => {
  it('answers draft routes with a 404 saying drafts are off', async () => {
    const created = await api().post('/api/plain').send({ title: 'p' }).expect(201);
    for (const res of [
      await api().get(`/api/plain/${created.body.id}/draft`),
      await api().patch(`/api/plain/${created.body.id}/draft`).send({ title: 'x' }),
      await api().delete(`/api/plain/${created.body.id}/draft`),
      await api().get('/api/plain?draft=true'),
      await api().post('/api/plain?draft=true').send({ title: 'x' }),
      await api().get('/api/globals/footer/draft'),
    ]) {
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(res.body.detail).toMatch(/drafts are off/i);
    }
    expect((await api().get('/api/plain').expect(200)).body.data).toHaveLength(1);
  });
});

describe('a global working copy', () => {
  it('GET/PATCH/DELETE /globals/<slug>/draft, beside the published global', async () => {
    await api().get('/api/globals/site/draft').expect(401);
    await api().get('/api/globals/site/draft').set(...reader).expect(403);
    await api().patch('/api/globals/site').set(...writer).send({ name: 'nope' }).expect(403);
    await api().patch('/api/globals/site').set(...editor).send({ name: 'Live' }).expect(200);
    const first = await api().get('/api/globals/site/draft').set(...writer).expect(200);
    expect(first.headers['cache-control']).toBe('private, no-store');
    expect(first.body).toMatchObject({ name: 'Live', _status: 'published' });
    const saved = await api().patch('/api/globals/site/draft').set(...writer).set('If-Match', first.headers.etag).send({ name: 'Draft name' });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ name: 'Draft name', _status: 'changed' });
    expect((await api().get('/api/globals/site').expect(200)).body.name).toBe('Live');
    await api().patch('/api/globals/site/draft').set(...writer).set('If-Match', first.headers.etag).send({ name: 'stale' }).expect(412);
    const reset = await api().delete('/api/globals/site/draft').set(...writer).expect(200);
    expect(reset.body).toMatchObject({ name: 'Live', _status: 'published' });
  });
});
