// GET /<slug>/count and api.local.count end to end: the list's where/filter/search/includeDeleted in all
// three dialects, read in the caller's field view, under the read rule (its constraint ANDed) and the
// soft-delete scope; every other list parameter ignored; errors exactly as the list answers them; the
// operation in the OpenAPI document, the hooks' `api` and custom endpoints' `req.context`.
import request, { type Response } from 'supertest';
import type { AccessArgs, AuthUser } from '../../lib';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';
import { JSON_TYPE, expectQueryError, qs, whereJson } from '../helpers/list-assertions';

const EDITOR = { id: '0000000000000000000000e1', role: 'editor' };
const READER = { id: '0000000000000000000000a1', role: 'reader' };
type Caller = 'anonymous' | 'reader' | 'editor';
const HEADERS: Record<Caller, [string, string] | undefined> = { anonymous: undefined, reader: asUser(READER), editor: asUser(EDITOR) };

const isEditor = (args: { user: AuthUser | null }) => args.user?.role === 'editor';
/** Anonymous callers read published posts only; users read every post. */
const readPublished = ({ user }: AccessArgs) => (user ? true : { status: { eq: 'published' } });

let t: TestApp;
/** Errors the posts' afterError hooks heard of, by operation. */
const afterErrors: Array<{ operation: string; message: string }> = [];

const get = (path: string, caller: Caller = 'anonymous') => {
  const req = request(t.app).get(`/api${path}`);
  const header = HEADERS[caller];
  return header ? req.set(...header) : req;
};

/** `{ total }` of GET /posts/count?<query>, checked to be exactly that body. */
async function countOf(query: string, caller: Caller = 'anonymous', slug = 'posts'): Promise<number> {
  const res = await get(`/${slug}/count${query ? `?${query}` : ''}`, caller);
  if (res.status !== 200) throw new Error(`expected 200, got ${res.status}: ${res.text.slice(0, 500)}`);
  expect(res.headers['content-type']).toMatch(JSON_TYPE);
  expect(res.body).toEqual({ total: expect.any(Number) });
  return res.body.total as number;
}

/** The list's total for the same query (Form B/C page envelope). */
async function listTotalOf(query: string, caller: Caller = 'anonymous'): Promise<number> {
  const res = await get(`/posts?perPage=1${query ? `&${query}` : ''}`, caller);
  expect(res.status).toBe(200);
  return res.body.meta.total as number;
}

/** The status and body of a refused request, to compare the count's refusal with the list's. */
const refusal = (res: Response) => ({ status: res.status, type: res.headers['content-type'], body: res.body });

beforeAll(async () => {
  t = await createTestApp({
    collections: [
      { slug: 'authors', access: { read: () => true }, fields: { name: { type: 'text' } } },
      {
        slug: 'posts',
        softDelete: true,
        access: { read: readPublished, create: () => true, update: () => true, delete: isEditor },
        fields: {
          title: { type: 'text', required: true },
          status: { type: 'select', options: ['draft', 'published'], default: 'draft' },
          views: { type: 'number' },
          author: { type: 'relationship', relationTo: 'authors' },
          secret: { type: 'text', hidden: true },
          editorNote: { type: 'text', access: { read: isEditor } },
        },
        hooks: { afterError: [({ operation, error }) => void afterErrors.push({ operation, message: (error as Error).message })] },
      },
      { slug: 'locked', access: { read: isEditor }, fields: { n: { type: 'number' } } },
      { slug: 'broken', access: { read: () => { throw new Error('rule failed'); } }, fields: { n: { type: 'number' } }, hooks: { afterError: [({ operation, error }) => void afterErrors.push({ operation, message: (error as Error).message })] } },
      { slug: 'plain', access: { read: () => true }, fields: { n: { type: 'number' } } },
      {
        // A hook's `api` counts as the hook's caller.
        slug: 'tallies',
        access: { read: () => true, create: () => true },
        fields: { posts: { type: 'number' }, drafts: { type: 'number' } },
        hooks: {
          beforeChange: [
            async ({ data, api }) => ({ ...data, posts: (await api.count('posts')).total, drafts: (await api.count('posts', { filter: 'status:draft' })).total }),
          ],
        },
      },
    ],
    // req.context counts as the endpoint's caller.
    endpoints: [(router) => router.get('/post-stats', async (req, res) => res.json(await req.context!.count('posts', { where: { views: { lt: 100 } } })))],
  });
  const local = t.api.local;
  const ann = await local.create('authors', { name: 'Ann' });
  const bob = await local.create('authors', { name: 'Bob' });
  const post = (title: string, status: string, views: number, author: string, extra: Record<string, unknown> = {}) =>
    local.create('posts', { title, status, views, author, ...extra });
  await post('Alpha', 'published', 10, ann.id, { editorNote: 'note-a', secret: 's-a' });
  await post('Beta', 'published', 20, bob.id);
  await post('Gamma', 'draft', 30, ann.id, { editorNote: 'note-g' });
  const delta = await post('Delta', 'draft', 40, bob.id);
  const alphabet = await post('Alphabet', 'published', 50, ann.id);
  await local.delete('posts', delta.id);
  await local.delete('posts', alphabet.id);
  await local.createMany('plain', [{ n: 1 }, { n: 2 }, { n: 3 }]);
});

afterAll(() => t?.close());
afterEach(() => expect(t.hostErrors).toEqual([]));

describe('GET /<slug>/count', () => {
  it('answers 200 { total } under the read rule: its constraint is ANDed, soft-deleted records are left out', async () => {
    // Live posts: Alpha, Beta (published), Gamma (draft). Anonymous callers read the published ones.
    expect(await countOf('')).toBe(2);
    expect(await countOf('', 'reader')).toBe(3);
    expect(await countOf('', 'editor')).toBe(3);
    // The caller's filter narrows within what the rule allows, never beyond it.
    expect(await countOf('filter=status:draft')).toBe(0);
    expect(await countOf('filter=status:draft', 'reader')).toBe(1);
  });

  it('is routed before /:id: "count" is never taken for a record id, and records are still found by id', async () => {
    const { body } = await get('/posts?perPage=1', 'reader').expect(200);
    const id = body.data[0].id as string;
    await get(`/posts/${id}`, 'reader').expect(200);
    await get('/posts/count', 'reader').expect(200, { total: 3 });
    // Another method on the path is the dispatcher's 405, naming the one it serves.
    const patched = await request(t.app).patch('/api/posts/count').send({ title: 'x' });
    expect(patched.status).toBe(405);
    expect(patched.headers.allow).toBe('GET, HEAD');
  });

  it.each<[string, string, Caller, number]>([
    ['where, JSON', whereJson({ views: { gt: 15 } }), 'reader', 2],
    ['where, brackets', qs(['where[views][gte]', 20]), 'reader', 2],
    ['where, Form A OR', whereJson({ OR: [{ title: { eq: 'Alpha' } }, { title: { eq: 'Gamma' } }] }), 'reader', 2],
    ['where, Form B or in brackets', qs(['where[or][0][title]', 'Alpha'], ['where[or][1][title]', 'Beta']), 'anonymous', 2],
    ['where, like', qs(['where[title][like]', 'alp%']), 'reader', 1],
    ['where through a relationship', qs(['where[author.name][eq]', 'Ann']), 'reader', 2],
    ['filter, Form C', qs(['filter', 'status:published']), 'reader', 2],
    ['filter, repeated with an operator', qs(['filter', 'views:>10'], ['filter', 'status:draft']), 'reader', 1],
    ['search', qs(['search', 'ALPH']), 'reader', 1],
    ['where, filter and search together', `${qs(['where[views][lt]', 100], ['filter', 'status:published'], ['search', 'a'])}`, 'anonymous', 2],
    ['an empty filter', 'filter=', 'reader', 3],
  ])('takes the list\'s conditions: %s, with the total the list carries', async (_name, query, caller, total) => {
    expect(await countOf(query, caller)).toBe(total);
    expect(await listTotalOf(query, caller)).toBe(total);
  });

  it('ignores the list parameters that shape a page, valid or not, and parameters it does not know', async () => {
    const ignored = qs(['page', 'abc'], ['limit', -1], ['perPage', 100000], ['sort', 'nonexistent'], ['fields', 'nope'], ['depth', 99], ['include', 'x'], ['cursor', 'garbage'], ['count', 'maybe'], ['utm_source', 'mail']);
    expect(await countOf(ignored, 'reader')).toBe(3);
    expect(await countOf(`${ignored}&filter=status:draft`, 'reader')).toBe(1);
  });

  it('takes includeDeleted as a list does: with the delete rule, the deleted records it allows', async () => {
    expect(await countOf('includeDeleted=true', 'editor')).toBe(5);
    expect(await countOf('includeDeleted=true&filter=status:draft', 'editor')).toBe(2);
    expect(await countOf('includeDeleted=false', 'editor')).toBe(3);
    // A reader may not delete: the same refusal as the list's.
    const count = await get('/posts/count?includeDeleted=true', 'reader');
    const list = await get('/posts?includeDeleted=true', 'reader');
    expect(count.status).toBe(403);
    expect(refusal(count)).toEqual(refusal(list));
    expectQueryError(await get('/posts/count?includeDeleted=maybe', 'editor'), 'includeDeleted', 'invalid_boolean');
  });

  it('reads the query in the caller\'s field view: an unreadable field is the list\'s 400, a hidden one for everyone', async () => {
    const unreadable = qs(['where[editorNote][eq]', 'note-a']);
    const count = await get(`/posts/count?${unreadable}`, 'reader');
    expectQueryError(count, 'where.editorNote', 'unknown_field');
    expect(refusal(count)).toEqual(refusal(await get(`/posts?${unreadable}`, 'reader')));
    expectQueryError(await get(`/posts/count?${qs(['filter', 'editorNote:note-a'])}`, 'reader'), 'filter.editorNote', 'unknown_field');
    // The editor may read it, so may filter on it.
    expect(await countOf(unreadable, 'editor')).toBe(1);
    // Search leaves out what the caller may not read: a value only in editorNote matches nothing for a reader.
    expect(await countOf(qs(['search', 'note-']), 'reader')).toBe(0);
    expect(await countOf(qs(['search', 'note-']), 'editor')).toBe(2);
    for (const caller of ['anonymous', 'reader', 'editor'] as const) {
      expectQueryError(await get(`/posts/count?${qs(['where[secret][eq]', 's-a'])}`, caller), 'where.secret', 'unknown_field');
    }
  });

  it.each<[string, string, string, string]>([
    ['malformed JSON', 'where={"views":', 'where', 'malformed_json'],
    ['an unknown operator', qs(['where[views][near]', 1]), 'where.views.near', 'unknown_operator'],
    ['a value that does not cast', qs(['where[views][gt]', 'abc']), 'where.views.gt', 'invalid_type'],
    ['an unknown field', qs(['where[nope]', 1]), 'where.nope', 'unknown_field'],
    ['a $ key', whereJson({ $where: 'sleep(1000)' }), 'where.$where', 'forbidden_key'],
    ['a malformed filter', qs(['filter', 'views']), 'filter', 'invalid_filter'],
  ])('refuses a bad query as the list does: %s', async (_name, query, field, code) => {
    const count = await get(`/posts/count?${query}`, 'reader');
    expectQueryError(count, field, code);
    expect(refusal(count)).toEqual(refusal(await get(`/posts?${query}`, 'reader')));
  });

  it('answers 401 to an anonymous caller the read rule refuses, 403 to a user it refuses', async () => {
    const anonymous = await get('/locked/count');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect((await get('/locked/count', 'reader')).status).toBe(403);
    expect(await countOf('', 'editor', 'locked')).toBe(0);
  });

  it('tells the collection\'s afterError hooks of a failing read rule, as a list does, and answers a 500', async () => {
    afterErrors.length = 0;
    const res = await get('/broken/count');
    expect(res.status).toBe(500);
    expect(afterErrors).toEqual([{ operation: 'read', message: 'rule failed' }]);
  });

  it('counts a collection without a filter', async () => {
    expect(await countOf('', 'anonymous', 'plain')).toBe(3);
    expect(await countOf(qs(['where[n][gte]', 2]), 'anonymous', 'plain')).toBe(2);
  });
});

describe('api.local.count', () => {
  it('counts with access overridden by default: every live record, deleted ones with includeDeleted', async () => {
    await expect(t.api.local.count('posts')).resolves.toEqual({ total: 3 });
    await expect(t.api.local.count('posts', { includeDeleted: true })).resolves.toEqual({ total: 5 });
  });

  it('takes where (an object), filter, search and includeDeleted', async () => {
    const local = t.api.local;
    await expect(local.count('posts', { where: { views: { gt: 15 } } })).resolves.toEqual({ total: 2 });
    await expect(local.count('posts', { where: { 'author.name': { eq: 'Ann' } } })).resolves.toEqual({ total: 2 });
    await expect(local.count('posts', { filter: 'status:draft' })).resolves.toEqual({ total: 1 });
    await expect(local.count('posts', { filter: ['views:>10', 'status:published'] })).resolves.toEqual({ total: 1 });
    await expect(local.count('posts', { search: 'alph', includeDeleted: true })).resolves.toEqual({ total: 2 });
    // A hidden field is unknown to a count as to find, access overridden or not.
    await expect(local.find('posts', { where: { secret: { eq: 's-a' } } })).rejects.toMatchObject({ status: 400, message: 'where.secret: unknown field' });
    await expect(local.count('posts', { where: { secret: { eq: 's-a' } } })).rejects.toMatchObject({ status: 400, message: 'where.secret: unknown field' });
  });

  it('applies the read rule and the field view of a given user', async () => {
    const local = t.api.local;
    await expect(local.count('posts', { user: null })).resolves.toEqual({ total: 2 });
    await expect(local.count('posts', { user: READER })).resolves.toEqual({ total: 3 });
    await expect(local.count('posts', { user: READER, where: { editorNote: { eq: 'note-a' } } })).rejects.toMatchObject({ status: 400, code: 'invalid_query' });
    await expect(local.count('posts', { user: EDITOR, where: { editorNote: { eq: 'note-a' } } })).resolves.toEqual({ total: 1 });
    await expect(local.count('locked', { user: READER })).rejects.toMatchObject({ status: 403 });
    await expect(local.count('posts', { where: { views: { near: 1 } } })).rejects.toMatchObject({ status: 400, code: 'invalid_query' });
  });

  it('is the hooks\' `api` too, running as the hook\'s caller', async () => {
    const anonymous = await request(t.app).post('/api/tallies').send({});
    expect(anonymous.status).toBe(201);
    expect(anonymous.body).toMatchObject({ posts: 2, drafts: 0 });
    const reader = await request(t.app).post('/api/tallies').set(...asUser(READER)).send({});
    expect(reader.body).toMatchObject({ posts: 3, drafts: 1 });
  });
});

describe('custom endpoints', () => {
  it('count through req.context as the caller', async () => {
    // Gamma is a draft: anonymous callers may not read it, a reader may.
    await get('/post-stats').expect(200, { total: 2 });
    await get('/post-stats', 'reader').expect(200, { total: 3 });
  });

  it('may not take the count\'s path: a custom GET /<slug>/count is refused at start-up', async () => {
    const refused = createTestApp({
      collections: [{ slug: 'posts', fields: { title: { type: 'text' } } }],
      endpoints: [(router) => router.get('/posts/count', (_req, res) => res.json({ total: -1 }))],
    });
    await expect(refused).rejects.toMatchObject({ problems: [expect.stringMatching(/^route GET \/posts\/count \(.*\) collides with GET \/posts\/count \(posts\.count\)$/)] });
  });
});

describe('the OpenAPI document', () => {
  it('has GET /<slug>/count with the list\'s conditions and a { total } answer', async () => {
    const { body: doc } = await request(t.app).get('/api/docs/openapi.json').expect(200);
    const operation = doc.paths['/posts/count'].get;
    expect(operation.operationId).toBe('posts.count');
    expect(operation.parameters.map((p: { name: string }) => p.name)).toEqual(['where', 'filter', 'search', 'includeDeleted', 'If-None-Match']);
    expect(operation.responses['200'].content['application/json'].schema).toEqual({
      type: 'object',
      properties: { total: { type: 'integer', minimum: 0 } },
      required: ['total'],
      additionalProperties: false,
    });
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '403']));
  });
});
