// The response cache over HTTP: X-Cache HIT/MISS, ETag/304, Cache-Control, keys that keep every
// caller's view apart (where-constrained users, anonymous, scopes), invalidation by this router's writes,
// population through related collections, and the entry bound.
import request from 'supertest';
import type { AccessArgs } from '../../lib';
import { asUser, createTestApp, type TestApp } from '../helpers/create-test-app';
import { eventually } from '../helpers/eventually';

type User = { id: string; role?: string; scopes?: string[] } | null;
const userOf = (args: AccessArgs) => args.user as User;

/** Anonymous readers see published posts; editors see all; other users see their own. */
function readPosts(args: AccessArgs) {
  const user = userOf(args);
  if (!user) return { status: { eq: 'published' } };
  if (user.role === 'editor') return true;
  return { owner: { eq: user.id } };
}

const U1 = asUser({ id: 'u1' });
const U2 = asUser({ id: 'u2' });
const EDITOR_A = asUser({ id: 'e1', role: 'editor' });
const EDITOR_B = asUser({ id: 'e2', role: 'editor' });

let t: TestApp;
const get = (path: string, user?: [string, string]) => {
  const req = request(t.app).get(`/api${path}`);
  return user ? req.set(...user) : req;
};
const titles = (body: { data: Array<{ title: string }> }) => body.data.map((d) => d.title).sort();

let attempt = 0;
/**
 * Runs a check that expects HITs with a fresh page size per attempt, until it passes: the change feed's
 * echo of an earlier write may land between two requests and (rightly) drop an entry just made.
 */
const withFreshKey = (check: (perPage: number) => Promise<void>) => eventually(() => check(30 + (attempt++ % 60)));
/** Requests `path` until a HIT comes back (see withFreshKey). */
const hit = (path: string, user?: [string, string]) =>
  eventually(async () => {
    const res = await get(path, user);
    expect(res.headers['x-cache']).toBe('HIT');
    return res;
  });

beforeAll(async () => {
  t = await createTestApp({
    collections: [
      { slug: 'authors', fields: { name: { type: 'text' } }, access: { read: ({ user }) => user !== null, update: () => true, create: () => true } },
      {
        slug: 'posts',
        cache: { ttl: 60 },
        fields: {
          title: { type: 'text', required: true },
          status: { type: 'select', options: ['draft', 'published'], default: 'draft' },
          owner: { type: 'text' },
          author: { type: 'relationship', relationTo: 'authors' },
          secret: { type: 'text', hidden: true },
        },
        access: { read: readPosts, create: () => true, update: () => true, delete: () => true },
      },
      { slug: 'small', cache: { ttl: 60, max: 2 }, fields: { n: { type: 'number' } }, access: { read: () => true, create: () => true } },
    ],
  });
  const author = await t.api.local.create('authors', { name: 'Ada' });
  const seed = [
    { title: 'p1', status: 'published', owner: 'u1', author: author.id, secret: 's1' },
    { title: 'd1', status: 'draft', owner: 'u1', author: author.id, secret: 's2' },
    { title: 'd2', status: 'draft', owner: 'u2', secret: 's3' },
  ];
  for (const data of seed) await t.api.local.create('posts', data);
  for (const n of [1, 2, 3]) await t.api.local.create('small', { n });
});

afterAll(async () => {
  await t.close();
});

describe('X-Cache, ETag and Cache-Control', () => {
  it('answers MISS, then HIT with the same body and ETag', async () => {
    await withFreshKey(async (perPage) => {
      const first = await get(`/posts?sort=title&perPage=${perPage}`);
      expect(first.status).toBe(200);
      expect(first.headers['x-cache']).toBe('MISS');
      const second = await get(`/posts?sort=title&perPage=${perPage}`);
      expect(second.status).toBe(200);
      expect(second.headers['x-cache']).toBe('HIT');
      expect(second.body).toEqual(first.body);
      expect(second.headers.etag).toBe(first.headers.etag);
      expect(first.headers.etag).toMatch(/^"[\w-]+"$/);
      expect(titles(first.body)).toEqual(['p1']);
    });
  });

  it('caches GET by id too', async () => {
    const [post] = (await t.api.local.find('posts', { where: { title: { eq: 'p1' } } })).docs;
    const first = await get(`/posts/${post.id}`);
    expect(first.status).toBe(200);
    const second = await hit(`/posts/${post.id.toUpperCase()}`);
    expect(second.body).toEqual(first.body);
  });

  it('shares one entry across textual forms of the same query', async () => {
    await withFreshKey(async (perPage) => {
      await get(`/posts?where[status][eq]=published&perPage=${perPage}`);
      const res = await get(`/posts?perPage=${perPage}&where[status]=published`);
      expect(res.headers['x-cache']).toBe('HIT');
    });
  });

  it('is public for anonymous callers and private for users', async () => {
    expect((await get('/posts')).headers['cache-control']).toBe('public, no-cache');
    expect((await get('/posts', U1)).headers['cache-control']).toBe('private, no-cache');
  });

  it('answers 304 to a matching If-None-Match, and 200 to a garbage one', async () => {
    const first = await hit('/posts?sort=-title');
    const notModified = await get('/posts?sort=-title').set('If-None-Match', first.headers.etag);
    expect(notModified.status).toBe(304);
    expect(notModified.text ?? '').toBe('');
    const listed = await get('/posts?sort=-title').set('If-None-Match', `"other", ${first.headers.etag}`);
    expect(listed.status).toBe(304);
    for (const garbage of ['garbage', '"', 'W/', '""', ',,,', 'x'.repeat(5000)]) {
      const res = await get('/posts?sort=-title').set('If-None-Match', garbage);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(first.body);
    }
  });

  it('sends no cache headers for collections without a cache', async () => {
    const res = await get('/authors', U1);
    expect(res.status).toBe(200);
    expect(res.headers['x-cache']).toBeUndefined();
  });

  it('never caches or leaks hidden fields', async () => {
    const again = await hit('/posts', EDITOR_A);
    expect(JSON.stringify(again.body)).not.toMatch(/"secret"|s[123]"/);
  });
});

describe('keys that follow the caller’s access', () => {
  it('keeps users with where-constrained access apart', async () => {
    await withFreshKey(async (perPage) => {
      const path = `/posts?sort=title&perPage=${perPage}`;
      const one = await get(path, U1);
      expect(one.headers['x-cache']).toBe('MISS');
      expect(titles(one.body)).toEqual(['d1', 'p1']);
      const two = await get(path, U2);
      expect(two.headers['x-cache']).toBe('MISS');
      expect(titles(two.body)).toEqual(['d2']);
      const oneAgain = await get(path, U1);
      expect(oneAgain.headers['x-cache']).toBe('HIT');
      expect(titles(oneAgain.body)).toEqual(['d1', 'p1']);
      const anonymous = await get(path);
      expect(anonymous.headers['x-cache']).toBe('MISS');
      expect(titles(anonymous.body)).toEqual(['p1']);
      expect(anonymous.headers.etag).not.toBe(one.headers.etag);
    });
  });

  it('shares one entry between callers whose rule gives the same answer', async () => {
    await withFreshKey(async (perPage) => {
      const a = await get(`/posts?perPage=${perPage}`, EDITOR_A);
      const b = await get(`/posts?perPage=${perPage}`, EDITOR_B);
      expect([a.headers['x-cache'], b.headers['x-cache']]).toEqual(['MISS', 'HIT']);
      expect(titles(b.body)).toEqual(['d1', 'd2', 'p1']);
    });
  });

  it('answers 404 for a record outside the caller’s constraint, even when another caller cached it', async () => {
    const [draft] = (await t.api.local.find('posts', { where: { title: { eq: 'd1' } } })).docs;
    expect((await get(`/posts/${draft.id}`, U1)).status).toBe(200);
    await hit(`/posts/${draft.id}`, U1);
    const other = await get(`/posts/${draft.id}`, U2);
    expect(other.status).toBe(404);
    // The title, as a JSON value (a bare "d1" could occur inside a random id).
    expect(JSON.stringify(other.body)).not.toContain('"d1"');
    expect((await get(`/posts/${draft.id}`)).status).toBe(404);
  });

  it('checks scopes before the cache: a key without the read scope gets the anonymous view, not the user\'s cached one', async () => {
    expect((await hit('/posts?perPage=9', U1)).status).toBe(200);
    const anonymous = await get('/posts?perPage=9');
    const writeOnly = await get('/posts?perPage=9', asUser({ id: 'u1', scopes: ['write'] }));
    expect(writeOnly.status).toBe(200);
    expect(JSON.stringify(writeOnly.body)).not.toContain('"d1"');
    expect(writeOnly.body).toEqual(anonymous.body);
  });

  it('keys populated answers on the related collection’s access too', async () => {
    const anonymous = await get('/posts?include=author&where[title]=p1');
    expect(anonymous.body.data[0].author).toMatch(/^[0-9a-f]{24}$/);
    const user = await get('/posts?include=author&where[title]=p1', EDITOR_A);
    expect(user.body.data[0].author).toMatchObject({ name: 'Ada' });
    const anonymousAgain = await hit('/posts?include=author&where[title]=p1');
    expect(anonymousAgain.body.data[0].author).toMatch(/^[0-9a-f]{24}$/);
    const userAgain = await hit('/posts?include=author&where[title]=p1', EDITOR_A);
    expect(userAgain.body.data[0].author).toMatchObject({ name: 'Ada' });
  });
});

describe('invalidation by this router’s writes', () => {
  it('a create through the router is visible at once', async () => {
    await hit('/posts?perPage=20');
    const created = await request(t.app).post('/api/posts').send({ title: 'p2', status: 'published' });
    expect(created.status).toBe(201);
    const after = await get('/posts?perPage=20');
    expect(after.headers['x-cache']).toBe('MISS');
    expect(titles(after.body)).toEqual(['p1', 'p2']);
  });

  it('an update and a delete through the router drop the record’s entry', async () => {
    const created = await request(t.app).post('/api/posts').send({ title: 'p3', status: 'published' });
    const path = `/posts/${created.body.id}`;
    await hit(path);
    expect((await request(t.app).patch(`/api${path}`).send({ title: 'p3b' })).status).toBe(200);
    const updated = await get(path);
    expect(updated.headers['x-cache']).toBe('MISS');
    expect(updated.body.title).toBe('p3b');
    await hit(path);
    // The record named in upper-case hex: still the same record, and its entry still goes.
    expect((await request(t.app).delete(`/api/posts/${String(created.body.id).toUpperCase()}`)).status).toBe(200);
    expect((await get(path)).status).toBe(404);
  });

  it('a change to a related collection drops populated answers', async () => {
    const path = '/posts?include=author&where[title]=p1';
    await hit(path, EDITOR_A);
    const [author] = (await t.api.local.find('authors')).docs;
    expect((await request(t.app).patch(`/api/authors/${author.id}`).set(...EDITOR_A).send({ name: 'Grace' })).status).toBe(200);
    const after = await get(path, EDITOR_A);
    expect(after.headers['x-cache']).toBe('MISS');
    expect(after.body.data[0].author.name).toBe('Grace');
  });

  it('a local API write invalidates too', async () => {
    await hit('/posts?perPage=21');
    await t.api.local.create('posts', { title: 'p4', status: 'published' });
    const after = await get('/posts?perPage=21');
    expect(after.headers['x-cache']).toBe('MISS');
    expect(titles(after.body)).toContain('p4');
  });
});

describe('memory bound', () => {
  it('keeps at most `max` entries, evicting the oldest', async () => {
    await withFreshKey(async (perPage) => {
      for (const n of [1, 2, 3]) expect((await get(`/small?where[n]=${n}&perPage=${perPage}`)).headers['x-cache']).toBe('MISS');
      expect((await get(`/small?where[n]=3&perPage=${perPage}`)).headers['x-cache']).toBe('HIT');
      expect((await get(`/small?where[n]=2&perPage=${perPage}`)).headers['x-cache']).toBe('HIT');
      expect((await get(`/small?where[n]=1&perPage=${perPage}`)).headers['x-cache']).toBe('MISS');
    });
  });
});
