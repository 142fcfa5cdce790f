// Collections REST end to end: create, get, update, delete, batch, soft delete, and every bad input
// answered with problem+json, nothing written, nothing leaked, nothing handed to the host.
import request from 'supertest';
import { Types } from 'mongoose';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';

const admin = asUser({ id: '000000000000000000000001', role: 'admin' });
const PROBLEM = /application\/problem\+json/;

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({
    collections: [
      { slug: 'authors', fields: { name: { type: 'text', required: true }, email: { type: 'email', unique: true } } },
      {
        slug: 'posts',
        softDelete: true,
        maxBatchSize: 5,
        fields: {
          title: { type: 'text', required: true },
          views: { type: 'number', default: 0 },
          status: { type: 'select', options: ['draft', 'published'], default: 'draft' },
          author: { type: 'relationship', relationTo: 'authors' },
          slug: { type: 'text', unique: true },
          secret: { type: 'text', hidden: true, default: 'top-secret-value' },
        },
      },
    ],
    globals: [{ slug: 'site', fields: { title: { type: 'text', default: 'My site' }, maintenance: { type: 'boolean', default: false } } }],
  });
});

afterAll(() => t.close());
afterEach(() => expect(t.hostErrors).toEqual([]));

const posts = () => t.connection.collection('posts');
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('create / get / update / delete', () => {
  it('creates a record: 201, Location, the documented record shape, hidden field stored but never returned', async () => {
    const res = await request(t.app).post('/api/posts').set(...admin).send({ title: 'Hello', slug: 'hello' });
    expect(res.status).toBe(201);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expect(res.headers.location).toBe(`/api/posts/${res.body.id}`);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{24}$/),
      title: 'Hello',
      views: 0,
      status: 'draft',
      slug: 'hello',
      author: null,
      createdAt: expect.stringMatching(ISO_MS),
      updatedAt: expect.stringMatching(ISO_MS),
      deletedAt: null,
    });
    expect(Object.keys(res.body)).toEqual(['id', 'title', 'views', 'status', 'author', 'slug', 'createdAt', 'updatedAt', 'deletedAt']);
    const stored = await posts().findOne({ _id: new Types.ObjectId(res.body.id) });
    expect(stored).toMatchObject({ title: 'Hello', secret: 'top-secret-value' });
    expect(stored).not.toHaveProperty('__v');
  });

  it('gets, patches and deletes a record', async () => {
    const created = await request(t.app).post('/api/posts').set(...admin).send({ title: 'Draft', views: 1 });
    const id = created.body.id;
    const got = await request(t.app).get(`/api/posts/${id}`).set(...admin);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(created.body);

    const patched = await request(t.app).patch(`/api/posts/${id}`).set(...admin).send({ status: 'published', views: null });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id, title: 'Draft', status: 'published' });
    // Cleared: null in the record, as a field never set reads, and unset in the database.
    expect(patched.body.views).toBeNull();
    expect(new Date(patched.body.updatedAt).getTime()).toBeGreaterThanOrEqual(new Date(created.body.updatedAt).getTime());
    const stored = await posts().findOne({ _id: new Types.ObjectId(id) });
    expect(stored).not.toHaveProperty('views');
    expect(stored?.status).toBe('published');

    const removed = await request(t.app).delete(`/api/posts/${id}?permanent=true`).set(...admin);
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ deleted: true });
    expect(await posts().countDocuments({ _id: new Types.ObjectId(id) })).toBe(0);
  });

  it('answers 404 problem+json for a missing id, a malformed id, and on each verb', async () => {
    const missing = new Types.ObjectId().toHexString();
    for (const [method, path] of [
      ['get', `/api/posts/${missing}`],
      ['get', '/api/posts/not-an-id'],
      ['patch', '/api/posts/not-an-id'],
      ['delete', `/api/posts/${missing}`],
      ['delete', '/api/posts/123'],
      ['get', '/api/globals/nope'],
    ] as const) {
      const res = await request(t.app)[method](path).set(...admin).send(method === 'patch' ? { title: 'x' } : undefined);
      expect([method, path, res.status]).toEqual([method, path, 404]);
      expect(res.headers['content-type']).toMatch(PROBLEM);
      expect(res.body).toMatchObject({ status: 404, title: 'Not found', code: 'not_found', type: 'urn:content-router:problem:not_found' });
    }
  });
});

describe('bad input on writes: a clear 4xx, nothing written', () => {
  let before: number;
  beforeEach(async () => {
    before = await posts().countDocuments();
  });
  afterEach(async () => {
    expect(await posts().countDocuments()).toBe(before);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each<[string, unknown, string, string]>([
    ['missing required', { views: 1 }, 'title', 'required'],
    ['wrong type', { title: 'x', views: 'many' }, 'views', 'invalid_type'],
    ['option not allowed', { title: 'x', status: 'archived' }, 'status', 'invalid_option'],
    ['unknown field', { title: 'x', colour: 'red' }, 'colour', 'unknown_field'],
    ['hidden field as if it existed', { title: 'x', secret: 'mine' }, 'secret', 'unknown_field'],
    ['read-only system field', { title: 'x', createdAt: '2020-01-01T00:00:00.000Z' }, 'createdAt', 'read_only'],
    ['bad relationship id', { title: 'x', author: 'bob' }, 'author', 'invalid_id'],
  ])('400 for %s, naming the field', async (_name, body, field, code) => {
    const res = await request(t.app).post('/api/posts').set(...admin).send(body as object);
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(PROBLEM);
    expect(res.body).toMatchObject({ status: 400, code: 'validation_error' });
    expect(res.body.errors).toContainEqual(expect.objectContaining({ field, code }));
    expect(JSON.stringify(res.body)).not.toContain('top-secret-value');
  });

  it('400 for __proto__ and constructor keys, without polluting prototypes', async () => {
    for (const raw of ['{"title":"x","__proto__":{"polluted":true}}', '{"title":"x","constructor":{"prototype":{"polluted":true}}}']) {
      const res = await request(t.app).post('/api/posts').set(...admin).set('Content-Type', 'application/json').send(raw);
      expect(res.status).toBe(400);
      expect(res.body.errors[0].code).toBe('unknown_field');
    }
  });

  it('400 for malformed JSON', async () => {
    const res = await request(t.app).post('/api/posts').set(...admin).set('Content-Type', 'application/json').send('{"title": ');
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(PROBLEM);
    expect(res.body.code).toBe('malformed_body');
  });

  it('400 for a JSON body that is not an object', async () => {
    const res = await request(t.app).post('/api/posts').set(...admin).send([1, 2]);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_error');
  });

  it('413 for a body over the limit (default 1 MB)', async () => {
    const res = await request(t.app).post('/api/posts').set(...admin).send({ title: 'x'.repeat(1024 * 1024 + 10) });
    expect(res.status).toBe(413);
    expect(res.headers['content-type']).toMatch(PROBLEM);
    expect(res.body.code).toBe('payload_too_large');
  });

  it('415 for a non-JSON content type on a write', async () => {
    for (const method of ['post', 'patch'] as const) {
      const path = method === 'post' ? '/api/posts' : `/api/posts/${new Types.ObjectId().toHexString()}`;
      const res = await request(t.app)[method](path).set(...admin).set('Content-Type', 'text/plain').send('title=x');
      expect(res.status).toBe(415);
      expect(res.body.code).toBe('unsupported_media_type');
    }
  });

  it('409 for a unique conflict, naming the field and not echoing the value', async () => {
    await request(t.app).post('/api/posts').set(...admin).send({ title: 'One', slug: 'taken-slug' }).expect(201);
    before += 1;
    const res = await request(t.app).post('/api/posts').set(...admin).send({ title: 'Two', slug: 'taken-slug' });
    expect(res.status).toBe(409);
    expect(res.headers['content-type']).toMatch(PROBLEM);
    expect(res.body).toMatchObject({ code: 'unique_conflict', errors: [{ field: 'slug', code: 'unique' }] });
    expect(JSON.stringify(res.body)).not.toContain('taken-slug');
  });

  it('409 on update into a taken unique value; the record is unchanged', async () => {
    const a = await request(t.app).post('/api/posts').set(...admin).send({ title: 'A', slug: 'slug-a' });
    await request(t.app).post('/api/posts').set(...admin).send({ title: 'B', slug: 'slug-b' });
    before += 2;
    const res = await request(t.app).patch(`/api/posts/${a.body.id}`).set(...admin).send({ slug: 'slug-b' });
    expect(res.status).toBe(409);
    expect((await posts().findOne({ _id: new Types.ObjectId(a.body.id) }))?.slug).toBe('slug-a');
  });
});

describe('batch create', () => {
  it('creates every item: 201 { data: [records] } in input order', async () => {
    const res = await request(t.app)
      .post('/api/posts')
      .set(...admin)
      .send({ data: [{ title: 'b1' }, { title: 'b2', views: 7 }] });
    expect(res.status).toBe(201);
    expect(res.body.data.map((r: { title: string }) => r.title)).toEqual(['b1', 'b2']);
    expect(res.body.data[1]).toMatchObject({ views: 7, status: 'draft', id: expect.any(String) });
    expect(await posts().countDocuments({ title: { $in: ['b1', 'b2'] } })).toBe(2);
  });

  it('writes nothing when one item is bad: 400 with errors[].index', async () => {
    const before = await posts().countDocuments();
    const res = await request(t.app)
      .post('/api/posts')
      .set(...admin)
      .send({ data: [{ title: 'ok1' }, { views: 'x' }, { title: 'ok3' }] });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ index: 1, field: 'title', code: 'required' }),
        expect.objectContaining({ index: 1, field: 'views', code: 'invalid_type' }),
      ]),
    );
    expect(await posts().countDocuments()).toBe(before);
  });

  it('writes nothing on a unique conflict inside the batch or with stored data (409 with index)', async () => {
    await request(t.app).post('/api/posts').set(...admin).send({ title: 'x', slug: 'batch-taken' }).expect(201);
    const before = await posts().countDocuments();
    const inside = await request(t.app).post('/api/posts').set(...admin).send({ data: [{ title: 'a', slug: 's1' }, { title: 'b', slug: 's1' }] });
    expect(inside.status).toBe(409);
    expect(inside.body.errors).toEqual([expect.objectContaining({ field: 'slug', index: 1 })]);
    const stored = await request(t.app).post('/api/posts').set(...admin).send({ data: [{ title: 'a', slug: 's2' }, { title: 'b', slug: 'batch-taken' }] });
    expect(stored.status).toBe(409);
    expect(stored.body.errors).toEqual([expect.objectContaining({ field: 'slug', index: 1 })]);
    expect(await posts().countDocuments()).toBe(before);
  });

  it('bounds the batch size and rejects an empty batch', async () => {
    const tooMany = await request(t.app).post('/api/posts').set(...admin).send({ data: Array.from({ length: 6 }, (_, i) => ({ title: `t${i}` })) });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.detail).toContain('at most 5');
    const empty = await request(t.app).post('/api/posts').set(...admin).send({ data: [] });
    expect(empty.status).toBe(400);
  });
});

describe('soft delete', () => {
  it('stamps deletedAt, hides the record, includes it with includeDeleted, restores it', async () => {
    const created = await request(t.app).post('/api/posts').set(...admin).send({ title: 'Trash me' });
    const id = created.body.id;
    expect((await request(t.app).delete(`/api/posts/${id}`).set(...admin)).body).toEqual({ deleted: true });
    const stored = await posts().findOne({ _id: new Types.ObjectId(id) });
    expect(stored?.deletedAt).toBeInstanceOf(Date);

    expect((await request(t.app).get(`/api/posts/${id}`).set(...admin)).status).toBe(404);
    const list = await request(t.app).get('/api/posts?perPage=100').set(...admin);
    expect(list.body.data.map((r: { id: string }) => r.id)).not.toContain(id);
    const withDeleted = await request(t.app).get(`/api/posts/${id}?includeDeleted=true`).set(...admin);
    expect(withDeleted.status).toBe(200);
    expect(withDeleted.body.deletedAt).toMatch(ISO_MS);
    const listDeleted = await request(t.app).get('/api/posts?perPage=100&includeDeleted=true').set(...admin);
    expect(listDeleted.body.data.map((r: { id: string }) => r.id)).toContain(id);

    expect((await request(t.app).delete(`/api/posts/${id}`).set(...admin)).status).toBe(404);
    expect((await request(t.app).patch(`/api/posts/${id}`).set(...admin).send({ title: 'x' })).status).toBe(404);

    const restored = await request(t.app).post(`/api/posts/${id}/restore`).set(...admin);
    expect(restored.status).toBe(200);
    expect(restored.body).toMatchObject({ id, title: 'Trash me', deletedAt: null });
    expect((await request(t.app).post(`/api/posts/${id}/restore`).set(...admin)).status).toBe(404);
    expect((await request(t.app).get(`/api/posts/${id}`).set(...admin)).status).toBe(200);
  });

  it('permanent=true removes the record; a bad permanent value is a 400', async () => {
    const created = await request(t.app).post('/api/posts').set(...admin).send({ title: 'Gone' });
    const bad = await request(t.app).delete(`/api/posts/${created.body.id}?permanent=yes`).set(...admin);
    expect(bad.status).toBe(400);
    expect(await posts().countDocuments({ _id: new Types.ObjectId(created.body.id) })).toBe(1);
    await request(t.app).delete(`/api/posts/${created.body.id}?permanent=true`).set(...admin).expect(200);
    expect(await posts().countDocuments({ _id: new Types.ObjectId(created.body.id) })).toBe(0);
  });

  it('has no restore route on collections without soft delete', async () => {
    const author = await request(t.app).post('/api/authors').set(...admin).send({ name: 'Ann' });
    const res = await request(t.app).post(`/api/authors/${author.body.id}/restore`).set(...admin);
    expect(res.status).toBe(404);
  });
});

describe('globals', () => {
  it('returns defaults before the first write, then upserts partial updates with POST and PATCH', async () => {
    const first = await request(t.app).get('/api/globals/site').set(...admin);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ title: 'My site', maintenance: false, createdAt: null, updatedAt: null });

    const posted = await request(t.app).post('/api/globals/site').set(...admin).send({ title: 'New title' });
    expect(posted.status).toBe(200);
    expect(posted.body).toMatchObject({ title: 'New title', maintenance: false, createdAt: expect.stringMatching(ISO_MS) });

    const patched = await request(t.app).patch('/api/globals/site').set(...admin).send({ maintenance: true });
    expect(patched.body).toMatchObject({ title: 'New title', maintenance: true });
    expect(await t.connection.collection('globals').countDocuments({ _id: 'site' as never })).toBe(1);
  });

  it('validates global writes like records', async () => {
    const res = await request(t.app).patch('/api/globals/site').set(...admin).send({ maintenance: 'yes', extra: 1 });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['extra', 'maintenance']);
  });
});
