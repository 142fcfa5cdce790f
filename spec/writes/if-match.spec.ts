// Revisions, ETags and If-Match over HTTP: strong tags on reads and write answers, writes only at the
// tag compared (412 otherwise, nothing written), `*`, requireIfMatch (428), globals, soft delete and
// restore, tags that differ between field views, and racing writers with one tag (exactly one wins).
import request from 'supertest';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';

const editor = asUser({ id: 'u1', role: 'editor' });
const admin = asUser({ id: 'a1', role: 'admin' });

describe('If-Match and ETags', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({
      collections: [
        {
          slug: 'posts',
          softDelete: true,
          fields: {
            title: { type: 'text', required: true },
            views: { type: 'number' },
            notes: { type: 'text', access: { read: ({ user }) => user?.role === 'admin' } },
          },
        },
        { slug: 'strict', requireIfMatch: true, fields: { title: { type: 'text' } } },
      ],
      globals: [{ slug: 'site', fields: { name: { type: 'text' } } }],
    });
  });
  afterAll(() => t.close());

  const create = async (body: Record<string, unknown>, slug = 'posts') => {
    const res = await request(t.app).post(`/api/${slug}`).set(...admin).send(body).expect(201);
    return res;
  };

  it('tags a GET with a strong ETag that the create answer already carried, and 304s on it', async () => {
    const created = await create({ title: 'a' });
    expect(created.headers.etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const read = await request(t.app).get(`/api/posts/${created.body.id}`).set(...admin).expect(200);
    expect(read.headers.etag).toBe(created.headers.etag);
    await request(t.app).get(`/api/posts/${created.body.id}`).set(...admin).set('If-None-Match', read.headers.etag).set('Cache-Control', 'no-cache').expect(304);
  });

  it('gives callers who see different fields different tags', async () => {
    const { body } = await create({ title: 'b', notes: 'secret' });
    const asAdmin = await request(t.app).get(`/api/posts/${body.id}`).set(...admin).expect(200);
    const asEditor = await request(t.app).get(`/api/posts/${body.id}`).set(...editor).expect(200);
    expect(asEditor.body.notes).toBeUndefined();
    expect(asEditor.headers.etag).not.toBe(asAdmin.headers.etag);
    // The editor's tag does not satisfy the admin's precondition, and the other way round.
    await request(t.app).patch(`/api/posts/${body.id}`).set(...admin).set('If-Match', asEditor.headers.etag).send({ views: 1 }).expect(412);
    await request(t.app).patch(`/api/posts/${body.id}`).set(...editor).set('If-Match', asEditor.headers.etag).send({ views: 1 }).expect(200);
  });

  it('writes with a current tag, answers the new tag, and refuses the old one with 412 writing nothing', async () => {
    const created = await create({ title: 'c' });
    const id = created.body.id as string;
    const first = await request(t.app).patch(`/api/posts/${id}`).set(...admin).set('If-Match', created.headers.etag).send({ title: 'c2' }).expect(200);
    expect(first.body.title).toBe('c2');
    expect(first.headers.etag).toBeDefined();
    expect(first.headers.etag).not.toBe(created.headers.etag);
    const stale = await request(t.app).patch(`/api/posts/${id}`).set(...admin).set('If-Match', created.headers.etag).send({ title: 'lost' }).expect(412);
    expect(stale.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(stale.body).toMatchObject({ status: 412, code: 'precondition_failed' });
    // A problem answer is not a representation of the record: no tag a client could mistake for one.
    expect(stale.headers.etag).toBeUndefined();
    expect(stale.headers['content-length']).toBe(String(Buffer.byteLength(stale.text)));
    const stored = await t.connection.collection('posts').findOne({ title: 'c2' });
    expect(stored).not.toBeNull();
    expect(await t.connection.collection('posts').countDocuments({ title: 'lost' })).toBe(0);
    // The tag of the answer is the one the next GET carries.
    const read = await request(t.app).get(`/api/posts/${id}`).set(...admin).expect(200);
    expect(read.headers.etag).toBe(first.headers.etag);
  });

  it('takes a list of tags and *, and never matches a weak tag', async () => {
    const created = await create({ title: 'd' });
    const id = created.body.id as string;
    const tag = created.headers.etag as string;
    await request(t.app).patch(`/api/posts/${id}`).set(...admin).set('If-Match', `W/${tag}`).send({ views: 2 }).expect(412);
    const listed = await request(t.app).patch(`/api/posts/${id}`).set(...admin).set('If-Match', `"nope", ${tag}`).send({ views: 2 }).expect(200);
    await request(t.app).patch(`/api/posts/${id}`).set(...admin).set('If-Match', '*').send({ views: 3 }).expect(200);
    await request(t.app).patch(`/api/posts/${id}`).set(...admin).set('If-Match', listed.headers.etag).send({ views: 4 }).expect(412);
    await request(t.app).patch('/api/posts/0123456789abcdef01234567').set(...admin).set('If-Match', '*').send({ views: 3 }).expect(404);
  });

  it.each([
    ['an empty value', ''],
    ['an unquoted tag', 'abc'],
    ['over 255 characters', `"${'a'.repeat(300)}"`],
  ])('answers 400 naming If-Match for %s, writing nothing', async (_name, value) => {
    const created = await create({ title: 'e' });
    const res = await request(t.app).patch(`/api/posts/${created.body.id}`).set(...admin).set('If-Match', value).send({ title: 'changed' }).expect(400);
    expect(res.body).toMatchObject({ code: 'invalid_header' });
    expect(res.body.detail).toContain('If-Match');
    expect(await t.connection.collection('posts').countDocuments({ title: 'changed' })).toBe(0);
  });

  it('lets exactly one of ten racing PATCHes with one tag win', async () => {
    const created = await create({ title: 'race', views: 0 });
    const id = created.body.id as string;
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => request(t.app).patch(`/api/posts/${id}`).set(...admin).set('If-Match', created.headers.etag).send({ views: i + 1 })),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 412)).toHaveLength(9);
    const winner = results.find((r) => r.status === 200)!;
    const stored = await t.connection.collection('posts').findOne({ title: 'race' });
    expect(stored?.views).toBe(winner.body.views);
  });

  it('deletes and restores only at the current tag', async () => {
    const created = await create({ title: 'f' });
    const id = created.body.id as string;
    await request(t.app).patch(`/api/posts/${id}`).set(...admin).send({ views: 9 }).expect(200);
    await request(t.app).delete(`/api/posts/${id}`).set(...admin).set('If-Match', created.headers.etag).expect(412);
    const current = await request(t.app).get(`/api/posts/${id}`).set(...admin).expect(200);
    await request(t.app).delete(`/api/posts/${id}`).set(...admin).set('If-Match', current.headers.etag).expect(200);
    const deleted = await request(t.app).get(`/api/posts/${id}?includeDeleted=true`).set(...admin).expect(200);
    await request(t.app).post(`/api/posts/${id}/restore`).set(...admin).set('If-Match', current.headers.etag).expect(412);
    const restored = await request(t.app).post(`/api/posts/${id}/restore`).set(...admin).set('If-Match', deleted.headers.etag).expect(200);
    expect(restored.body.deletedAt).toBeNull();
    expect(restored.headers.etag).toBeDefined();
  });

  it('requires If-Match on PATCH and DELETE where requireIfMatch is set (428), and accepts *', async () => {
    const created = await create({ title: 'g' }, 'strict');
    const id = created.body.id as string;
    const missing = await request(t.app).patch(`/api/strict/${id}`).set(...admin).send({ title: 'h' }).expect(428);
    expect(missing.body).toMatchObject({ status: 428, code: 'precondition_required' });
    await request(t.app).delete(`/api/strict/${id}`).set(...admin).expect(428);
    expect((await t.connection.collection('strict').findOne({}))?.title).toBe('g');
    await request(t.app).patch(`/api/strict/${id}`).set(...admin).set('If-Match', created.headers.etag).send({ title: 'h' }).expect(200);
    await request(t.app).delete(`/api/strict/${id}`).set(...admin).set('If-Match', '*').expect(200);
  });

  it('guards globals the same way, from their defaults on', async () => {
    const first = await request(t.app).get('/api/globals/site').set(...admin).expect(200);
    expect(first.headers.etag).toBeDefined();
    const written = await request(t.app).patch('/api/globals/site').set(...admin).set('If-Match', first.headers.etag).send({ name: 'one' }).expect(200);
    expect(written.headers.etag).toBeDefined();
    await request(t.app).patch('/api/globals/site').set(...admin).set('If-Match', first.headers.etag).send({ name: 'lost' }).expect(412);
    const read = await request(t.app).get('/api/globals/site').set(...admin).expect(200);
    expect(read.body.name).toBe('one');
    expect(read.headers.etag).toBe(written.headers.etag);
  });

  it('moves the stored revision with every write', async () => {
    const created = await create({ title: 'rev' });
    const id = created.body.id as string;
    const revOf = async () => (await t.connection.collection('posts').findOne({ title: 'rev' }))?._rev;
    expect(await revOf()).toBe(1);
    await request(t.app).patch(`/api/posts/${id}`).set(...admin).send({ views: 1 }).expect(200);
    expect(await revOf()).toBe(2);
    await request(t.app).delete(`/api/posts/${id}`).set(...admin).expect(200);
    expect(await revOf()).toBe(3);
    expect(created.body._rev).toBeUndefined();
  });
});
