// Field access end to end: `access: { read, create, update }` on fields, over HTTP and through the local
// API, against the real test database. An unreadable field is absent from every answer to that caller and
// naming it in a query answers exactly like a field that does not exist; writing a field one may not write
// is a 403 naming it, with nothing written; rules are asked once per request.
import { Types } from 'mongoose';
import request from 'supertest';
import type { Response } from 'supertest';
import { ConfigError, contentRouter, generateTypes } from '../../lib';
import type { ApiRecord, ContentConfig, LocalApi } from '../../lib';
import type { FieldAccess, FieldAccessArgs, FieldAccessFn } from '../../lib/config/hooks';
import { type TestApp, type TestConfig, asUser, createTestApp } from '../helpers/create-test-app';
import { expectOkList, expectQueryError, idsOf, qs, recordsOf, whereJson } from '../helpers/list-assertions';

const EDITOR = { id: '0000000000000000000000e1', role: 'editor' };
const READER = { id: '0000000000000000000000a1', role: 'reader' };
type Caller = 'anonymous' | 'reader' | 'editor';

/** How many times each field rule was asked, by `slug.field.op`. */
const calls = new Map<string, number>();

/** An editor-only rule that counts its calls; `async` ones answer with a promise (rules may be async). */
function editorOnly(name: string, async = false): FieldAccessFn {
  return (args: FieldAccessArgs) => {
    calls.set(name, (calls.get(name) ?? 0) + 1);
    const allowed = args.user?.role === 'editor';
    return async ? Promise.resolve(allowed) : allowed;
  };
}

/** The schema of this file; without `withAccess` the same fields carry no `access` (the OpenAPI and types comparison). */
function buildConfig(withAccess: boolean): TestConfig {
  const access = (rules: FieldAccess) => (withAccess ? { access: rules } : {});
  const open = { read: () => true };
  return {
    collections: [
      {
        slug: 'authors',
        access: open,
        fields: { name: { type: 'text' }, secretNote: { type: 'text', ...access({ read: editorOnly('authors.secretNote.read') }) } },
      },
      {
        slug: 'posts',
        softDelete: true,
        access: open,
        fields: {
          title: { type: 'text', required: true },
          body: { type: 'textarea' },
          editorNote: { type: 'text', ...access({ read: editorOnly('posts.editorNote.read', true) }) },
          score: { type: 'number', ...access({ read: editorOnly('posts.score.read') }) },
          author: { type: 'relationship', relationTo: 'authors' },
          reviewer: { type: 'relationship', relationTo: 'authors', ...access({ read: editorOnly('posts.reviewer.read') }) },
          rating: { type: 'number', ...access({ create: editorOnly('posts.rating.create', true) }) },
          featured: { type: 'boolean', ...access({ update: editorOnly('posts.featured.update') }) },
        },
      },
      { slug: 'comments', access: open, fields: { text: { type: 'text' }, post: { type: 'relationship', relationTo: 'posts' } } },
      {
        slug: 'ranked',
        access: open,
        sortable: ['title', 'score'],
        search: ['title', 'editorNote'],
        fields: {
          title: { type: 'text' },
          score: { type: 'number', ...access({ read: editorOnly('ranked.score.read') }) },
          editorNote: { type: 'text', ...access({ read: editorOnly('ranked.editorNote.read') }) },
        },
      },
      {
        // Hooks meet field access: an afterRead that puts an unreadable field back, a field afterRead on one,
        // and a beforeValidate before which the client's body is checked for fields it may not set.
        slug: 'hooked',
        access: open,
        hooks: {
          beforeValidate: [({ data }) => ({ ...data, title: String(data.title ?? 'untitled').trim() })],
          afterRead: [({ doc }) => ({ ...doc, editorNote: 'SECRET-from-afterRead', computed: 'yes' })],
        },
        fields: {
          title: { type: 'text' },
          editorNote: {
            type: 'text',
            ...access({ read: editorOnly('hooked.editorNote.read'), create: editorOnly('hooked.editorNote.create') }),
            hooks: { afterRead: [({ value }) => { fieldHookValues.push(value); return value; }] },
          },
        },
      },
      {
        slug: 'cached',
        cache: { ttl: 60 },
        access: open,
        fields: {
          title: { type: 'text' },
          editorNote: { type: 'text', ...access({ read: editorOnly('cached.editorNote.read') }) },
          author: { type: 'relationship', relationTo: 'authors' },
        },
      },
    ],
    endpoints: [
      (router) => {
        // A custom endpoint reads through req.context: the caller's field access applies.
        router.get('/endpoint/posts', async (req, res) => res.json(await req.context!.find('posts', { limit: 20, depth: 1 })));
      },
    ],
    globals: [
      {
        slug: 'settings',
        access: open,
        fields: {
          siteName: { type: 'text' },
          internalNote: { type: 'text', ...access({ read: editorOnly('settings.internalNote.read') }) },
          maintenance: { type: 'boolean', ...access({ update: editorOnly('settings.maintenance.update') }) },
        },
      },
    ],
  };
}

/** Every read rule of the schema: a request asks each of them exactly once. */
const READ_RULES = ['authors.secretNote.read', 'posts.editorNote.read', 'posts.score.read', 'posts.reviewer.read', 'ranked.score.read', 'ranked.editorNote.read', 'hooked.editorNote.read', 'cached.editorNote.read', 'settings.internalNote.read'];

/** What the `hooked` collection's field afterRead hook was given. */
const fieldHookValues: unknown[] = [];

let t: TestApp;
let local: LocalApi;
/** Every body answered to a caller who is not an editor: none may carry an editor-only value. */
const seen: string[] = [];
const ids: Record<string, string> = {};

function send(caller: Caller, req: request.Test): request.Test {
  if (caller === 'editor') return req.set(...asUser(EDITOR));
  if (caller === 'reader') return req.set(...asUser(READER));
  return req;
}

async function record(caller: Caller, res: Response): Promise<Response> {
  if (caller !== 'editor') seen.push(res.text);
  return res;
}

function get(path: string, caller: Caller = 'anonymous', headers: Record<string, string> = {}): Promise<Response> {
  return send(caller, request(t.app).get(path).set(headers)).then((res) => record(caller, res));
}

function post(path: string, body: unknown, caller: Caller): Promise<Response> {
  return send(caller, request(t.app).post(path).send(body as object)).then((res) => record(caller, res));
}

function patch(path: string, body: unknown, caller: Caller): Promise<Response> {
  return send(caller, request(t.app).patch(path).send(body as object)).then((res) => record(caller, res));
}

/** The stored document, as the database holds it. */
function stored(slug: string, id: string): Promise<Record<string, unknown> | null> {
  return t.connection.db!.collection(slug).findOne({ _id: new Types.ObjectId(id) });
}

function countStored(slug: string, filter: Record<string, unknown>): Promise<number> {
  return t.connection.db!.collection(slug).countDocuments(filter);
}

beforeAll(async () => {
  t = await createTestApp(buildConfig(true));
  local = t.api.local;
  // Seeded through the local API without a user: access overridden, every field writable.
  ids.ann = (await local.create('authors', { name: 'Ann', secretNote: 'SECRET-ann' })).id;
  ids.bob = (await local.create('authors', { name: 'Bob', secretNote: 'SECRET-bob' })).id;
  const posts = Array.from({ length: 20 }, (_, i) => ({
    title: i === 0 ? 'Alpha' : `Post ${String(i).padStart(2, '0')}`,
    body: 'public text',
    editorNote: i === 0 ? 'SECRET-needle' : `SECRET-note-${i}`,
    score: i,
    author: i % 2 ? ids.bob : ids.ann,
    reviewer: ids.bob,
    rating: 3,
  }));
  const created = await local.createMany('posts', posts);
  ids.alpha = created[0].id;
  ids.comment = (await local.create('comments', { text: 'first', post: ids.alpha })).id;
  await local.createMany('ranked', [
    { title: 'low', score: 1, editorNote: 'SECRET-ranked-low' },
    { title: 'high', score: 9, editorNote: 'SECRET-ranked-high' },
  ]);
  const cached = await local.createMany('cached', [
    { title: 'K1', editorNote: 'SECRET-k1', author: ids.ann },
    { title: 'K2', editorNote: 'SECRET-k2', author: ids.bob },
  ]);
  ids.k1 = cached[0].id;
  ids.k2 = cached[1].id;
  ids.hooked = (await local.create('hooked', { title: 'H', editorNote: 'SECRET-hooked' })).id;
  await local.updateGlobal('settings', { siteName: 'Site', internalNote: 'SECRET-internal', maintenance: false });
});

afterAll(async () => {
  await t?.close();
  for (const body of seen) expect(body).not.toMatch(/SECRET-/);
});

afterEach(() => {
  expect(t.hostErrors).toEqual([]);
});

/** A record as the editor sees it, and what everyone else sees: the same without the editor-only fields. */
function expectWithout(record: Record<string, unknown>, fields: readonly string[]): void {
  for (const field of fields) expect(record).not.toHaveProperty(field);
}

const POST_UNREADABLE = ['editorNote', 'score', 'reviewer'];

/** Each of the named rules was asked exactly once since `calls` was cleared. */
function expectEachOnce(names: readonly string[]): void {
  expect(Object.fromEntries(names.map((name) => [name, calls.get(name) ?? 0]))).toEqual(Object.fromEntries(names.map((name) => [name, 1])));
}

describe('read false: the field is absent from every answer', () => {
  it.each<Caller>(['anonymous', 'reader'])('lists and gets leave the unreadable fields out for %s', async (caller) => {
    const list = await get('/api/posts?limit=20', caller);
    expectOkList(list);
    expect(recordsOf(list)).toHaveLength(20);
    for (const post of recordsOf(list)) {
      expectWithout(post, POST_UNREADABLE);
      expect(post).toEqual(expect.objectContaining({ title: expect.any(String), body: 'public text', rating: 3 }));
    }
    const one = await get(`/api/posts/${ids.alpha}`, caller);
    expect(one.status).toBe(200);
    expect(Object.keys(one.body).sort()).toEqual(['author', 'body', 'createdAt', 'deletedAt', 'featured', 'id', 'rating', 'title', 'updatedAt']);
  });

  it('an editor gets every field in lists and gets', async () => {
    const list = await get('/api/posts?limit=20&sort=score', 'editor');
    expectOkList(list);
    expect(recordsOf(list)[0]).toEqual(expect.objectContaining({ title: 'Alpha', editorNote: 'SECRET-needle', score: 0, reviewer: ids.bob }));
    const one = await get(`/api/posts/${ids.alpha}`, 'editor');
    expect(one.body).toEqual(expect.objectContaining({ editorNote: 'SECRET-needle', score: 0, reviewer: ids.bob }));
  });

  it('population at depth 1 leaves out the related collection\'s unreadable fields, and never populates an unreadable relation', async () => {
    const anon = await get(`/api/posts/${ids.alpha}?depth=1`);
    expect(anon.status).toBe(200);
    expect(anon.body.author).toEqual({ id: ids.ann, name: 'Ann', createdAt: expect.any(String), updatedAt: expect.any(String) });
    expectWithout(anon.body, POST_UNREADABLE);
    const editor = await get(`/api/posts/${ids.alpha}?depth=1`, 'editor');
    expect(editor.body.author).toEqual(expect.objectContaining({ name: 'Ann', secretNote: 'SECRET-ann' }));
    expect(editor.body.reviewer).toEqual(expect.objectContaining({ name: 'Bob', secretNote: 'SECRET-bob' }));
  });

  it('population at depth 2 and through include leaves them out at every level', async () => {
    for (const query of ['depth=2', 'include=post.author', 'include=post&depth=2']) {
      const list = await get(`/api/comments?${query}`, 'reader');
      expectOkList(list);
      const [comment] = recordsOf(list);
      const populated = comment.post as Record<string, unknown>;
      expect(populated).toEqual(expect.objectContaining({ id: ids.alpha, title: 'Alpha' }));
      expectWithout(populated, POST_UNREADABLE);
      expect(populated.author).toEqual({ id: ids.ann, name: 'Ann', createdAt: expect.any(String), updatedAt: expect.any(String) });
      const one = await get(`/api/comments/${ids.comment}?${query}`);
      expect(one.status).toBe(200);
      expectWithout(one.body.post, POST_UNREADABLE);
      expect(one.body.post.author).not.toHaveProperty('secretNote');
    }
    const editor = await get(`/api/comments/${ids.comment}?depth=2`, 'editor');
    expect(editor.body.post).toEqual(expect.objectContaining({ editorNote: 'SECRET-needle', score: 0 }));
    expect(editor.body.post.author).toEqual(expect.objectContaining({ secretNote: 'SECRET-ann' }));
    expect(editor.body.post.reviewer).toEqual(expect.objectContaining({ secretNote: 'SECRET-bob' }));
    const included = await get(`/api/comments/${ids.comment}?include=post.reviewer`, 'editor');
    expect(included.body.post.reviewer).toEqual(expect.objectContaining({ name: 'Bob', secretNote: 'SECRET-bob' }));
  });

  it('write answers (create, batch, update, an empty update, restore) leave them out for the writer who may not read them', async () => {
    const body = { title: 'Written', editorNote: 'SECRET-written', reviewer: ids.ann };
    const created = await post('/api/posts', body, 'reader');
    expect(created.status).toBe(201);
    expectWithout(created.body, POST_UNREADABLE);
    // Writable though unreadable: stored as sent.
    expect(await stored('posts', created.body.id)).toEqual(expect.objectContaining({ editorNote: 'SECRET-written' }));
    const batch = await post('/api/posts', { data: [body, body] }, 'reader');
    expect(batch.status).toBe(201);
    for (const item of batch.body.data) expectWithout(item, POST_UNREADABLE);
    const patched = await patch(`/api/posts/${created.body.id}`, { editorNote: 'SECRET-patched', body: 'b' }, 'reader');
    expect(patched.status).toBe(200);
    expect(patched.body.body).toBe('b');
    expectWithout(patched.body, POST_UNREADABLE);
    const unchanged = await patch(`/api/posts/${created.body.id}`, {}, 'reader');
    expect(unchanged.status).toBe(200);
    expectWithout(unchanged.body, POST_UNREADABLE);
    expect((await send('reader', request(t.app).delete(`/api/posts/${created.body.id}`))).status).toBe(200);
    const restored = await post(`/api/posts/${created.body.id}/restore`, undefined, 'reader');
    expect(restored.status).toBe(200);
    expect(restored.body).toEqual(expect.objectContaining({ id: created.body.id, deletedAt: null }));
    expectWithout(restored.body, POST_UNREADABLE);

    const editor = await post('/api/posts', body, 'editor');
    expect(editor.status).toBe(201);
    expect(editor.body).toEqual(expect.objectContaining({ editorNote: 'SECRET-written', reviewer: ids.ann }));
    const editorPatch = await patch(`/api/posts/${editor.body.id}`, { body: 'c' }, 'editor');
    expect(editorPatch.body).toEqual(expect.objectContaining({ editorNote: 'SECRET-written', body: 'c' }));
    await send('editor', request(t.app).delete(`/api/posts/${editor.body.id}`));
    const editorRestore = await post(`/api/posts/${editor.body.id}/restore`, undefined, 'editor');
    expect(editorRestore.body).toEqual(expect.objectContaining({ editorNote: 'SECRET-written' }));
    // Leave the 20 seeded posts alone for the list tests.
    await t.connection.db!.collection('posts').deleteMany({ title: 'Written' });
  });

  it('a global leaves them out of reads and write answers', async () => {
    const anon = await get('/api/globals/settings');
    expect(anon.status).toBe(200);
    expect(anon.body).toEqual(expect.objectContaining({ siteName: 'Site', maintenance: false }));
    expect(anon.body).not.toHaveProperty('internalNote');
    const written = await patch('/api/globals/settings', { siteName: 'Site' }, 'reader');
    expect(written.status).toBe(200);
    expect(written.body).not.toHaveProperty('internalNote');
    const editor = await get('/api/globals/settings', 'editor');
    expect(editor.body).toEqual(expect.objectContaining({ internalNote: 'SECRET-internal' }));
    const editorWrite = await patch('/api/globals/settings', { siteName: 'Site' }, 'editor');
    expect(editorWrite.body).toEqual(expect.objectContaining({ internalNote: 'SECRET-internal' }));
  });
});

describe('hooks and custom endpoints meet field access', () => {
  beforeEach(() => {
    fieldHookValues.length = 0;
  });

  it('an unreadable field afterRead puts back is removed; its field afterRead hook does not run for that caller', async () => {
    for (const caller of ['anonymous', 'reader'] as const) {
      const one = await get(`/api/hooked/${ids.hooked}`, caller);
      expect(one.status).toBe(200);
      expect(one.body).toEqual(expect.objectContaining({ title: 'H', computed: 'yes' }));
      expect(one.body).not.toHaveProperty('editorNote');
      const list = await get('/api/hooked', caller);
      expect(recordsOf(list)[0]).not.toHaveProperty('editorNote');
    }
    expect(fieldHookValues).toEqual([]);
    const editor = await get(`/api/hooked/${ids.hooked}`, 'editor');
    expect(editor.body).toEqual(expect.objectContaining({ editorNote: 'SECRET-from-afterRead', computed: 'yes' }));
    expect(fieldHookValues).toEqual(['SECRET-hooked']);
  });

  it("a body setting a field the caller may not create is a 403 before beforeValidate runs; the hook's own output is not the client's", async () => {
    const before = await countStored('hooked', {});
    const denied = await post('/api/hooked', { title: ' T ', editorNote: 'x' }, 'reader');
    expect(denied.status).toBe(403);
    expect(denied.body.errors).toEqual([{ field: 'editorNote', message: expect.any(String), code: 'forbidden_field' }]);
    expect(await countStored('hooked', {})).toBe(before);
    const allowed = await post('/api/hooked', { title: ' T ' }, 'reader');
    expect(allowed.status).toBe(201);
    expect(allowed.body).toEqual(expect.objectContaining({ title: 'T', computed: 'yes' }));
    expect(allowed.body).not.toHaveProperty('editorNote');
    await t.connection.db!.collection('hooked').deleteMany({ title: 'T' });
  });

  it("a custom endpoint's req.context reads in the caller's view", async () => {
    const anon = await get('/api/endpoint/posts');
    expect(anon.status).toBe(200);
    expect(anon.body.docs).toHaveLength(20);
    for (const item of anon.body.docs) {
      expectWithout(item, POST_UNREADABLE);
      expect(item.author).not.toHaveProperty('secretNote');
    }
    const editor = await get('/api/endpoint/posts', 'editor');
    expect(editor.body.docs[0]).toEqual(expect.objectContaining({ editorNote: expect.any(String), reviewer: expect.objectContaining({ secretNote: 'SECRET-bob' }) }));
  });

  it("a custom endpoint asks each read rule once for its request", async () => {
    calls.clear();
    expect((await get('/api/endpoint/posts', 'reader')).status).toBe(200);
    expectEachOnce(READ_RULES);
  });
});

describe('cached answers are never shared between callers who see different fields', () => {
  async function expectCache(res: Response, status: 'HIT' | 'MISS', editor: boolean): Promise<void> {
    expect(res.status).toBe(200);
    expect(res.headers['x-cache']).toBe(status);
    const records = Array.isArray(res.body.data) ? recordsOf(res) : [res.body];
    for (const item of records) {
      if (editor) expect(item).toEqual(expect.objectContaining({ editorNote: expect.stringMatching(/^SECRET-k/) }));
      else expect(item).not.toHaveProperty('editorNote');
      const author = item.author as Record<string, unknown>;
      if (typeof author === 'object') {
        if (editor) expect(author).toHaveProperty('secretNote');
        else expect(author).not.toHaveProperty('secretNote');
      }
    }
  }

  it.each<[string, string]>([
    ['a get', 'K1'],
    ['a list with population', '?sort=title&depth=1'],
  ])('%s: the editor first, then an anonymous reader', async (_name, target) => {
    const path = target === 'K1' ? `/api/cached/${ids.k1}` : `/api/cached${target}`;
    await expectCache(await get(path, 'editor'), 'MISS', true);
    await expectCache(await get(path), 'MISS', false);
    await expectCache(await get(path, 'editor'), 'HIT', true);
    await expectCache(await get(path), 'HIT', false);
  });

  it.each<[string, string]>([
    ['a get', 'K2'],
    ['a list with population', '?sort=-title&depth=1'],
  ])('%s: an anonymous reader first, then the editor', async (_name, target) => {
    const path = target === 'K2' ? `/api/cached/${ids.k2}` : `/api/cached${target}`;
    await expectCache(await get(path), 'MISS', false);
    await expectCache(await get(path, 'editor'), 'MISS', true);
    await expectCache(await get(path), 'HIT', false);
    await expectCache(await get(path, 'editor'), 'HIT', true);
  });

  it("the editor's ETag does not validate an anonymous reader's copy (the representations differ)", async () => {
    const editor = await get(`/api/cached/${ids.k1}`, 'editor');
    const anon = await get(`/api/cached/${ids.k1}`, 'anonymous', { 'If-None-Match': editor.headers.etag });
    expect(anon.status).toBe(200);
    expect(anon.headers.etag).not.toBe(editor.headers.etag);
    expect(anon.body).not.toHaveProperty('editorNote');
  });
});

describe('naming an unreadable field in a query answers exactly like an unknown field', () => {
  /** Same status, type and body once the field name is swapped: an unreadable field answers like a missing one. */
  function expectSameAsUnknown(unreadable: Response, unknown: Response, name: string): void {
    expect(unreadable.status).toBe(400);
    expect(unreadable.headers['content-type']).toBe(unknown.headers['content-type']);
    expect(unreadable.text.split(name).join('nonexistent')).toBe(unknown.text);
  }

  // [case, collection, the unreadable field it names, the query naming a field, the error's field, its code]
  it.each<[string, string, string, (name: string) => string, string, string]>([
    ['where (bracket)', 'posts', 'editorNote', (name) => qs([`where[${name}][eq]`, 'x']), 'where.NAME', 'unknown_field'],
    ['where (bare bracket)', 'posts', 'editorNote', (name) => qs([`where[${name}]`, 'x']), 'where.NAME', 'unknown_field'],
    ['where (JSON)', 'posts', 'editorNote', (name) => whereJson({ [name]: { like: 'SECRET%' } }), 'where.NAME', 'unknown_field'],
    ['where (JSON exists)', 'posts', 'editorNote', (name) => whereJson({ [name]: { exists: true } }), 'where.NAME', 'unknown_field'],
    ['where inside or', 'posts', 'editorNote', (name) => whereJson({ or: [{ title: 'x' }, { [name]: 'x' }] }), 'where.or.1.NAME', 'unknown_field'],
    ['where on a number', 'posts', 'score', (name) => qs([`where[${name}][gt]`, '5']), 'where.NAME', 'unknown_field'],
    ['filter (equals)', 'posts', 'editorNote', (name) => qs(['filter', `${name}:x`]), 'filter.NAME', 'unknown_field'],
    ['filter (greater than)', 'posts', 'editorNote', (name) => qs(['filter', `${name}:>S`]), 'filter.NAME', 'unknown_field'],
    ['filter (not equal)', 'posts', 'editorNote', (name) => qs(['filter', `${name}:!=x`]), 'filter.NAME', 'unknown_field'],
    ['sort (Form A)', 'posts', 'score', (name) => `sort=-${name}`, 'sort', 'invalid_sort'],
    ['sort (Form B/C)', 'posts', 'editorNote', (name) => `sort=title:asc,${name}:desc`, 'sort', 'invalid_sort'],
    ['sort with sortable declared', 'ranked', 'score', (name) => `sort=${name}`, 'sort', 'invalid_sort'],
    ['fields', 'posts', 'editorNote', (name) => `fields=title,${name}`, 'fields', 'invalid_fields'],
    ['include', 'posts', 'reviewer', (name) => `include=${name}`, 'include', 'invalid_include'],
    ['include through a relation', 'comments', 'reviewer', (name) => `include=post.${name}`, 'include', 'invalid_include'],
    ['a dotted path to an unreadable field of another collection', 'posts', 'secretNote', (name) => qs([`where[author.${name}][eq]`, 'x']), 'where.author.NAME', 'unknown_field'],
    ['a dotted path in filter', 'posts', 'secretNote', (name) => qs(['filter', `author.${name}:x`]), 'filter.author.NAME', 'unknown_field'],
    ['a dotted path through an unreadable relation', 'posts', 'reviewer', (name) => qs([`where[${name}.name][eq]`, 'Ann']), 'where.NAME.name', 'unknown_field'],
    ['a dotted path two levels deep', 'comments', 'secretNote', (name) => whereJson({ [`post.author.${name}`]: 'x' }), 'where.post.author.NAME', 'unknown_field'],
  ])('%s', async (_case, slug, name, build, field, code) => {
    const query = build(name);
    const unreadable = await get(`/api/${slug}?${query}`);
    const unknown = await get(`/api/${slug}?${build('nonexistent')}`);
    expectQueryError(unknown, field.replace('NAME', 'nonexistent'), code);
    expectQueryError(unreadable, field.replace('NAME', name), code);
    expectSameAsUnknown(unreadable, unknown, name);
    // The reader sees the same schema as an anonymous caller; the editor may name the field.
    expectSameAsUnknown(await get(`/api/${slug}?${query}`, 'reader'), unknown, name);
    const editor = await get(`/api/${slug}?${query}`, 'editor');
    expectOkList(editor);
  });

  it('sort with sortable declared: the list of allowed sorts does not name the unreadable field', async () => {
    const anon = expectQueryError(await get('/api/ranked?sort=nonexistent'), 'sort', 'invalid_sort');
    expect(anon.message).toBe('"nonexistent" is not sortable; sort on one of: title, createdAt, id');
    const editor = expectQueryError(await get('/api/ranked?sort=nonexistent', 'editor'), 'sort', 'invalid_sort');
    expect(editor.message).toBe('"nonexistent" is not sortable; sort on one of: title, score, createdAt, id');
    const sorted = await get('/api/ranked?sort=-score', 'editor');
    expect(recordsOf(sorted).map((r) => r.title)).toEqual(['high', 'low']);
  });

  it('GET /:id with fields or include naming an unreadable field answers like an unknown field', async () => {
    for (const [param, name, code] of [['fields', 'editorNote', 'invalid_fields'], ['include', 'reviewer', 'invalid_include']] as const) {
      const unreadable = await get(`/api/posts/${ids.alpha}?${param}=${name}`);
      const unknown = await get(`/api/posts/${ids.alpha}?${param}=nonexistent`);
      expectQueryError(unreadable, param, code);
      expectSameAsUnknown(unreadable, unknown, name);
      const editor = await get(`/api/posts/${ids.alpha}?${param}=${name}`, 'editor');
      expect(editor.status).toBe(200);
    }
  });

  it('the editor gets what the query asks for', async () => {
    expect(idsOf(await get(`/api/posts?${qs(['where[editorNote][eq]', 'SECRET-needle'])}`, 'editor'))).toEqual([ids.alpha]);
    expect(idsOf(await get(`/api/posts?${qs(['filter', 'score:>18'])}`, 'editor'))).toHaveLength(1);
    expect(idsOf(await get(`/api/posts?${qs(['where[author.secretNote][eq]', 'SECRET-ann'])}&limit=20`, 'editor'))).toHaveLength(10);
    expect(idsOf(await get(`/api/posts?${qs(['where[reviewer.name]', 'Bob'])}&limit=20`, 'editor'))).toHaveLength(20);
    const fields = await get('/api/posts?fields=title,editorNote&sort=score&limit=1', 'editor');
    expect(recordsOf(fields)).toEqual([{ id: ids.alpha, title: 'Alpha', editorNote: 'SECRET-needle' }]);
  });

  it.each<[string, string]>([
    ['the default search fields', 'posts'],
    ['a declared search list', 'ranked'],
  ])('search over %s does not search an unreadable field: no oracle', async (_name, slug) => {
    const term = slug === 'posts' ? 'needle' : 'ranked-high';
    const anon = await get(`/api/${slug}?search=${term}`);
    expectOkList(anon);
    expect(recordsOf(anon)).toEqual([]);
    expect(recordsOf(await get(`/api/${slug}?search=${term}`, 'reader'))).toEqual([]);
    expect(recordsOf(await get(`/api/${slug}?search=${term}`, 'editor'))).toHaveLength(1);
    // A term a readable field holds is still found.
    expect(recordsOf(await get(`/api/${slug}?search=${slug === 'posts' ? 'alpha' : 'high'}`))).toHaveLength(1);
  });

  it('depth does not populate an unreadable relation, and populates the readable ones', async () => {
    const list = await get('/api/posts?depth=1&limit=20');
    for (const item of recordsOf(list)) {
      expect(item).not.toHaveProperty('reviewer');
      expect(item.author).toEqual(expect.objectContaining({ name: expect.any(String) }));
    }
  });
});

describe('create false / update false', () => {
  function expectForbidden(res: Response, field: string, index?: number): void {
    expect(res.status).toBe(403);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toEqual(
      expect.objectContaining({ status: 403, code: 'forbidden_field', detail: expect.stringContaining(field), errors: [{ field, message: expect.any(String), code: 'forbidden_field', ...(index === undefined ? {} : { index }) }] }),
    );
  }

  it('POST setting a field the create rule denies is a 403 naming it; nothing is written', async () => {
    const before = await countStored('posts', {});
    expectForbidden(await post('/api/posts', { title: 'Denied', rating: 5 }, 'reader'), 'rating');
    expectForbidden(await post('/api/posts', { title: 'Denied', rating: null }, 'reader'), 'rating');
    expect(await countStored('posts', {})).toBe(before);
    expect(await countStored('posts', { title: 'Denied' })).toBe(0);
  });

  it('POST without that field works, and the update rule does not apply to a create', async () => {
    const res = await post('/api/posts', { title: 'Allowed', featured: true }, 'reader');
    expect(res.status).toBe(201);
    expect(await stored('posts', res.body.id)).toEqual(expect.objectContaining({ title: 'Allowed', featured: true }));
    const editor = await post('/api/posts', { title: 'Allowed', rating: 5 }, 'editor');
    expect(editor.status).toBe(201);
    expect(editor.body.rating).toBe(5);
    await t.connection.db!.collection('posts').deleteMany({ title: 'Allowed' });
  });

  it('PATCH setting a field the update rule denies is a 403 naming it; nothing is written', async () => {
    const before = await stored('posts', ids.alpha);
    expectForbidden(await patch(`/api/posts/${ids.alpha}`, { title: 'Changed', featured: true }, 'reader'), 'featured');
    expectForbidden(await patch(`/api/posts/${ids.alpha}`, { featured: null }, 'reader'), 'featured');
    expect(await stored('posts', ids.alpha)).toEqual(before);
  });

  it('PATCH: the create rule does not apply to an update, and the editor may set what the update rule guards', async () => {
    const reader = await patch(`/api/posts/${ids.alpha}`, { rating: 4 }, 'reader');
    expect(reader.status).toBe(200);
    expect(reader.body.rating).toBe(4);
    const editor = await patch(`/api/posts/${ids.alpha}`, { featured: true, rating: 3 }, 'editor');
    expect(editor.status).toBe(200);
    expect(editor.body).toEqual(expect.objectContaining({ featured: true, rating: 3 }));
    await patch(`/api/posts/${ids.alpha}`, { featured: null }, 'editor');
  });

  it('a batch with one item setting a denied field is a 403 naming it and its index; nothing of the batch is written', async () => {
    const before = await countStored('posts', {});
    const res = await post('/api/posts', { data: [{ title: 'Batch 1' }, { title: 'Batch 2', rating: 1 }, { title: 'Batch 3' }] }, 'reader');
    expectForbidden(res, 'rating', 1);
    expect(await countStored('posts', {})).toBe(before);
    const editor = await post('/api/posts', { data: [{ title: 'Batch 1' }, { title: 'Batch 2', rating: 1 }] }, 'editor');
    expect(editor.status).toBe(201);
    await t.connection.db!.collection('posts').deleteMany({ title: /^Batch/ });
  });

  it('a global field the update rule denies is a 403 naming it; nothing is written', async () => {
    const before = await t.connection.db!.collection('settings').findOne({});
    const res = await patch('/api/globals/settings', { siteName: 'Changed', maintenance: true }, 'reader');
    expectForbidden(res, 'maintenance');
    expect(await t.connection.db!.collection('settings').findOne({})).toEqual(before);
    const editor = await patch('/api/globals/settings', { maintenance: true }, 'editor');
    expect(editor.status).toBe(200);
    expect(editor.body.maintenance).toBe(true);
    await local.updateGlobal('settings', { maintenance: false });
  });
});

describe('rules are decided once per request', () => {
  beforeEach(() => calls.clear());

  it.each<Caller>(['anonymous', 'editor'])('a list of 20 records with population asks each read rule once (%s)', async (caller) => {
    const res = await get('/api/posts?limit=20&depth=1&sort=title', caller);
    expectOkList(res);
    expect(recordsOf(res)).toHaveLength(20);
    expectEachOnce(READ_RULES);
  });

  it('a list of comments populated two levels deep asks each read rule once', async () => {
    expectOkList(await get('/api/comments?depth=2', 'reader'));
    expectEachOnce(READ_RULES);
  });

  it('a batch of 20 that sets a create-guarded field asks its rule once (and each read rule once for the answer)', async () => {
    const res = await post('/api/posts', { data: Array.from({ length: 20 }, (_, i) => ({ title: `Many ${i}`, rating: 1 })) }, 'editor');
    expect(res.status).toBe(201);
    expectEachOnce(['posts.rating.create', ...READ_RULES]);
    await t.connection.db!.collection('posts').deleteMany({ title: /^Many / });
  });
});

describe('the local API', () => {
  it('without a user overrides field access: every field, readable and writable, in queries too', async () => {
    const found = await local.find('posts', { where: { editorNote: { eq: 'SECRET-needle' } }, depth: 1 });
    expect(found.docs).toHaveLength(1);
    expect(found.docs[0]).toEqual(expect.objectContaining({ editorNote: 'SECRET-needle', score: 0 }));
    expect(found.docs[0].reviewer).toEqual(expect.objectContaining({ secretNote: 'SECRET-bob' }));
    const one = await local.findById('posts', ids.alpha, { fields: 'title,editorNote' });
    expect(one).toEqual({ id: ids.alpha, title: 'Alpha', editorNote: 'SECRET-needle' });
    const created = await local.create('posts', { title: 'Local', rating: 2 });
    expect(created.rating).toBe(2);
    expect((await local.update('posts', created.id, { featured: true })).featured).toBe(true);
    expect(await local.findGlobal('settings')).toEqual(expect.objectContaining({ internalNote: 'SECRET-internal' }));
    await local.delete('posts', created.id, { permanent: true });
    // A user with access overridden: run as that user, every field readable and writable.
    const overridden = await local.create('posts', { title: 'Local override', rating: 1 }, { user: READER, overrideAccess: true });
    expect(overridden).toEqual(expect.objectContaining({ rating: 1 }));
    expect(await local.findById('posts', ids.alpha, { user: READER, overrideAccess: true })).toEqual(expect.objectContaining({ editorNote: 'SECRET-needle' }));
    await local.delete('posts', overridden.id, { permanent: true });
  });

  it('with a user applies it: unreadable fields absent and unknown to queries, denied writes a 403 with nothing written', async () => {
    const reader = { user: READER };
    const found = await local.find('posts', { ...reader, limit: 20, depth: 1 });
    for (const item of found.docs) expectWithout(item, POST_UNREADABLE);
    expect((found.docs[0].author as ApiRecord)).not.toHaveProperty('secretNote');
    expect(await local.findById('posts', ids.alpha, { user: null })).not.toHaveProperty('editorNote');
    expect(await local.findGlobal('settings', reader)).not.toHaveProperty('internalNote');

    const unreadable = await local.find('posts', { ...reader, where: { editorNote: { eq: 'x' } } }).catch((e: unknown) => e);
    const unknown = await local.find('posts', { ...reader, where: { nonexistent: { eq: 'x' } } }).catch((e: unknown) => e);
    expect(unreadable).toMatchObject({ status: 400, code: 'invalid_query', errors: [{ field: 'where.editorNote', code: 'unknown_field' }] });
    expect((unreadable as Error).message.split('editorNote').join('nonexistent')).toBe((unknown as Error).message);
    await expect(local.findById('posts', ids.alpha, { ...reader, fields: 'editorNote' })).rejects.toMatchObject({ status: 400, errors: [{ field: 'fields', code: 'invalid_fields' }] });

    const before = await countStored('posts', {});
    await expect(local.create('posts', { title: 'Local denied', rating: 1 }, reader)).rejects.toMatchObject({ status: 403, code: 'forbidden_field', errors: [{ field: 'rating' }] });
    await expect(local.createMany('posts', [{ title: 'Local denied' }, { title: 'Local denied', rating: 1 }], reader)).rejects.toMatchObject({ status: 403, errors: [{ field: 'rating', index: 1 }] });
    expect(await countStored('posts', {})).toBe(before);
    const original = await stored('posts', ids.alpha);
    await expect(local.update('posts', ids.alpha, { featured: true }, reader)).rejects.toMatchObject({ status: 403, errors: [{ field: 'featured' }] });
    await expect(local.updateGlobal('settings', { maintenance: true }, reader)).rejects.toMatchObject({ status: 403, errors: [{ field: 'maintenance' }] });
    expect(await stored('posts', ids.alpha)).toEqual(original);
  });

  it('with an editor applies the rules as they answer for the editor', async () => {
    const found = await local.find('posts', { user: EDITOR, where: { editorNote: { eq: 'SECRET-needle' } } });
    expect(found.docs[0]).toEqual(expect.objectContaining({ editorNote: 'SECRET-needle' }));
    const created = await local.create('posts', { title: 'Local editor', rating: 4 }, { user: EDITOR });
    expect(created).toEqual(expect.objectContaining({ rating: 4 }));
    await local.delete('posts', created.id, { permanent: true });
  });

  it("a call's hooks share one context, as a request's do", async () => {
    const contexts: unknown[] = [];
    const app = await createTestApp({
      collections: [{ slug: 'notes', fields: { text: { type: 'text' } }, hooks: { beforeChange: [({ context }) => void contexts.push(context)], afterChange: [({ context }) => void contexts.push(context)] } }],
    });
    try {
      await app.api.local.create('notes', { text: 'a' });
      await app.api.local.create('notes', { text: 'b' });
    } finally {
      await app.close();
    }
    expect(contexts).toHaveLength(4);
    expect(contexts[1]).toBe(contexts[0]);
    expect(contexts[3]).toBe(contexts[2]);
    // A new one per call.
    expect(contexts[2]).not.toBe(contexts[0]);
  });

  it('a call with a user asks each rule once, as a request does', async () => {
    calls.clear();
    const found = await local.find('posts', { user: READER, limit: 20, depth: 1 });
    expect(found.docs).toHaveLength(20);
    expectEachOnce(READ_RULES);
    calls.clear();
    const created = await local.createMany('posts', Array.from({ length: 20 }, (_, i) => ({ title: `Local many ${i}`, rating: 1 })), { user: EDITOR });
    expect(created).toHaveLength(20);
    expectEachOnce(['posts.rating.create', ...READ_RULES]);
    await t.connection.db!.collection('posts').deleteMany({ title: /^Local many / });
  });
});

describe('what a rule answers', () => {
  let app: TestApp;
  const logged: unknown[] = [];

  beforeAll(async () => {
    app = await createTestApp({
      logger: { error: (...args: unknown[]) => void logged.push(args), warn: () => undefined, info: () => undefined },
      collections: [
        {
          slug: 'answers',
          access: { read: () => true },
          fields: {
            title: { type: 'text' },
            // Only true allows: a truthy value that is not true denies.
            truthy: { type: 'text', access: { read: (() => 'yes') as unknown as FieldAccessFn, create: (() => 1) as unknown as FieldAccessFn } },
            failing: {
              type: 'text',
              access: {
                read: ({ req }) => {
                  if (req?.get('x-fail') === 'error') throw new Error('SECRET-rule-failure');
                  if (req?.get('x-fail') === 'value') throw 'SECRET-thrown-string';
                  return true;
                },
              },
            },
          },
        },
      ],
    });
    await app.api.local.create('answers', { title: 'a', truthy: 'SECRET-truthy', failing: 'shown' });
  });

  afterAll(async () => {
    await app?.close();
  });

  it('a rule answering a truthy value that is not true denies: the field is unreadable, a body setting it a 403', async () => {
    const list = await request(app.app).get('/api/answers');
    expect(list.status).toBe(200);
    expect(recordsOf(list)[0]).toEqual(expect.objectContaining({ title: 'a', failing: 'shown' }));
    expect(list.text).not.toContain('SECRET');
    expectQueryError(await request(app.app).get(`/api/answers?${qs(['where[truthy]', 'x'])}`), 'where.truthy', 'unknown_field');
    const write = await request(app.app).post('/api/answers').set(...asUser(EDITOR)).send({ title: 'b', truthy: 'x' });
    expect(write.status).toBe(403);
    expect(write.body.errors).toEqual([expect.objectContaining({ field: 'truthy', code: 'forbidden_field' })]);
  });

  it.each(['error', 'value'])('a rule that throws (%s) is a 500 without detail, logged; nothing of it reaches the client', async (kind) => {
    logged.length = 0;
    const res = await request(app.app).get('/api/answers').set('x-fail', kind);
    expect(res.status).toBe(500);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.text).not.toContain('SECRET');
    expect(logged).not.toEqual([]);
    expect(app.hostErrors).toEqual([]);
  });
});

describe('the schema documents say only that an unreadable field may be absent', () => {
  it('the OpenAPI document of the same config with and without field access differs only in the fields a record requires (and examples)', async () => {
    const plain = await createTestApp(buildConfig(false));
    try {
      const withAccess = await request(t.app).get('/api/docs/openapi.json');
      const without = await request(plain.app).get('/api/docs/openapi.json');
      expect(withAccess.status).toBe(200);
      // An unreadable field is still a field of the schema, but not required: callers it refuses do not get it.
      expect(withAccess.body.components.schemas.Posts.properties).toHaveProperty('editorNote');
      expect(without.body.components.schemas.Posts.required).toEqual(expect.arrayContaining(['editorNote', 'score', 'reviewer']));
      expect(withAccess.body.components.schemas.Posts.required).not.toEqual(expect.arrayContaining(['editorNote']));
      expect(withAccess.body.components.schemas.Posts.required).not.toEqual(expect.arrayContaining(['score']));
      // The examples of where and filter name fields every caller may read, so they may differ too.
      type Doc = { components: { schemas: Record<string, { required?: string[] }> }; paths: Record<string, Record<string, { parameters?: { name: string; description?: string }[] }>> };
      const records = (body: Doc) => {
        for (const schema of Object.values(body.components.schemas)) delete schema.required;
        for (const operation of Object.values(body.paths).flatMap((item) => Object.values(item))) {
          for (const parameter of operation.parameters ?? []) if (['where', 'filter'].includes(parameter.name)) delete parameter.description;
        }
        return body;
      };
      expect(records(withAccess.body)).toEqual(records(without.body));
    } finally {
      await plain.close();
    }
  });

  it('generateTypes marks unreadable fields optional in records, and nothing else changes', () => {
    const withAccess = generateTypes(buildConfig(true));
    expect(withAccess).toMatch(/editorNote\?: string/);
    expect(withAccess).toMatch(/export interface Post \{[^}]*\n  editorNote\?: string \| null;/);
    expect(withAccess.replace(/\?: /g, ': ')).toBe(generateTypes(buildConfig(false)).replace(/\?: /g, ': '));
  });
});

describe('config errors name the path', () => {
  const db = { uri: 'mongodb://127.0.0.1:1/never-used' };
  function refused(config: Omit<ContentConfig, 'db'>): string {
    try {
      contentRouter({ ...config, db });
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as Error).message;
    }
    throw new Error('the config was accepted');
  }

  it.each<[string, unknown, string]>([
    ['an unknown access operation', { write: () => true }, 'collections[0].fields.title.access.write: unknown field access operation (expected read, create, update)'],
    ['a rule that is not a function', { read: true }, 'collections[0].fields.title.access.read: must be a function'],
    ['access that is not an object', 'editors', 'collections[0].fields.title.access: must be an object of access functions (read, create, update)'],
  ])('%s on a collection field', (_name, access, message) => {
    expect(refused({ collections: [{ slug: 'posts', fields: { title: { type: 'text', access: access as FieldAccess } } }] })).toContain(message);
  });

  it('a global field is checked alike', () => {
    expect(refused({ globals: [{ slug: 'site', fields: { note: { type: 'text', access: { read: 'editors' as never } } } }] })).toContain('globals[0].fields.note.access.read: must be a function');
  });

  it('a global field takes no create rule: a global is never created, its writes are updates', () => {
    const message = refused({ globals: [{ slug: 'site', fields: { note: { type: 'text', access: { create: () => true } } } }] });
    expect(message).toContain('globals[0].fields.note.access.create: unknown field access operation (expected read, update)');
  });
});
