// What a cache in front of the API may do with the router's answers. Reads without credentials are
// `public, no-cache`; reads by a caller (Bearer, API key, the host's session user) `private, no-cache`; both
// vary on the credential headers; writes are `private, no-cache` and errors `no-store`. Every validator is
// the router's own: reads carry a strong ETag whatever the host's `etag` setting, and no answer carries the
// weak ETag Express computes of a body.
import express from 'express';
import request from 'supertest';
import { GOOD_PASSWORD, type AuthTestApp, createAuthTestApp } from '../auth/auth-test-app';
import { asUser } from '../helpers/create-test-app';

const ed = asUser({ id: '65a1b2c3d4e5f60718293a4b', role: 'editor' });
const PUBLIC = 'public, no-cache';
const PRIVATE = 'private, no-cache';
let t: AuthTestApp;
let noteId: string;
let token: string;

beforeAll(async () => {
  t = await createAuthTestApp({
    collections: [{ slug: 'notes', softDelete: true, fields: { title: { type: 'text' } }, access: { read: () => true } }],
    extra: {
      globals: [{ slug: 'site', fields: { title: { type: 'text' } }, access: { read: () => true } }],
      uploads: {},
      endpoints: [
        { path: '/ping', method: 'post', handler: () => ({ pong: true }) },
        { path: '/stats', method: 'get', handler: () => ({ notes: 1 }) },
      ],
    },
  });
  noteId = (await request(t.app).post('/api/notes').set(...ed).send({ title: 'first' }).expect(201)).body.id;
  token = (await request(t.app).post('/api/users/register').send({ email: 'cc@example.com', password: GOOD_PASSWORD }).expect(201)).body.accessToken;
});
afterAll(() => t.close());
afterEach(() => expect(t.hostErrors).toEqual([]));

const reads = () => ['/api/notes', `/api/notes/${noteId}`, '/api/notes/count', '/api/globals/site', '/api/stats'];
const varied = (res: request.Response) => String(res.headers.vary ?? '').split(/\s*,\s*/).map((h) => h.toLowerCase());

describe('reads', () => {
  it('without credentials are public, no-cache, vary on the credential headers, and carry a strong ETag', async () => {
    for (const path of reads()) {
      const res = await request(t.app).get(path).expect(200);
      expect({ path, cacheControl: res.headers['cache-control'] }).toEqual({ path, cacheControl: PUBLIC });
      expect(varied(res)).toEqual(expect.arrayContaining(['authorization', 'x-api-key', 'cookie']));
      expect(res.headers.etag).toMatch(/^"[^"]+"$/);
    }
  });

  it('by the host’s session user or with a Bearer token are private', async () => {
    for (const path of reads()) {
      expect((await request(t.app).get(path).set(...ed)).headers['cache-control']).toBe(PRIVATE);
      expect((await request(t.app).get(path).set('Authorization', `Bearer ${token}`)).headers['cache-control']).toBe(PRIVATE);
    }
  });

  it('vary on exactly the credential headers, added after a Vary the host set', async () => {
    const res = await request(t.app).get('/api/notes').expect(200);
    expect(res.headers.vary).toBe('Authorization, X-API-Key, Cookie');
    const host = express();
    host.use((_req, hostRes, next) => {
      hostRes.vary('Origin, Cookie');
      next();
    });
    host.use('/api', t.api);
    expect((await request(host).get('/api/notes').expect(200)).headers.vary).toBe('Origin, Cookie, Authorization, X-API-Key');
    expect((await request(host).get(`/api/notes/${noteId}`).expect(200)).headers.vary).toBe('Origin, Cookie, Authorization, X-API-Key');
  });

  it('answered 304 keep their Cache-Control and Vary', async () => {
    const first = await request(t.app).get('/api/notes').expect(200);
    const again = await request(t.app).get('/api/notes').set('If-None-Match', first.headers.etag).expect(304);
    expect(again.headers['cache-control']).toBe(PUBLIC);
    expect(varied(again)).toEqual(expect.arrayContaining(['authorization', 'x-api-key', 'cookie']));
  });

  it('carry the router’s ETag, and answer 304 on it, when the host app turned Express’s etag off (which stays off)', async () => {
    t.app.set('etag', false);
    try {
      for (const path of reads()) {
        const res = await request(t.app).get(path).expect(200);
        expect(res.headers.etag).toMatch(/^"[^"]+"$/);
        await request(t.app).get(path).set('If-None-Match', res.headers.etag).expect(304);
      }
      expect(t.app.get('etag')).toBe(false);
    } finally {
      t.app.set('etag', true);
    }
  });
});

describe('errors', () => {
  it('are no-store', async () => {
    const missing = await request(t.app).get('/api/notes/65a1b2c3d4e5f60718293a4c').expect(404);
    expect(missing.headers['cache-control']).toBe('no-store');
    const bad = await request(t.app).get('/api/notes?where=%7B').expect(400);
    expect(bad.headers['cache-control']).toBe('no-store');
    const refused = await request(t.app).post('/api/notes').send({ title: 'anonymous' }).expect(401);
    expect(refused.headers['cache-control']).toBe('no-store');
  });
});

describe('writes', () => {
  it('are private, no-cache and carry no ETag but the record’s (never Express’s weak one)', async () => {
    const created = await request(t.app).post('/api/notes').set(...ed).send({ title: 'two' }).expect(201);
    expect(created.headers['cache-control']).toBe(PRIVATE);
    expect(created.headers.etag).toMatch(/^"[^"]+"$/);
    const id = created.body.id;
    const answers = [
      await request(t.app).post('/api/notes').set(...ed).send({ data: [{ title: 'batch' }] }).expect(201),
      await request(t.app).patch(`/api/notes?where=${encodeURIComponent(JSON.stringify({ id: { eq: id } }))}`).set(...ed).send({ title: 'bulk' }).expect(200),
      await request(t.app).delete(`/api/notes/${id}`).set(...ed).expect(200),
      await request(t.app).delete(`/api/notes?where=${encodeURIComponent(JSON.stringify({ title: { eq: 'batch' } }))}`).set(...ed).expect(200),
      await request(t.app).post('/api/upload').set(...ed).attach('file', Buffer.from('hello'), { filename: 'a.txt', contentType: 'text/plain' }).expect(201),
      await request(t.app).post('/api/users/login').send({ email: 'cc@example.com', password: GOOD_PASSWORD }).expect(200),
      await request(t.app).post('/api/ping').set(...ed).send({}).expect(200),
    ];
    answers.forEach((res, index) => expect({ index, etag: res.headers.etag }).toEqual({ index, etag: undefined }));
    expect(answers[0].headers['cache-control']).toBe(PRIVATE);
  });
});
