// The document tells the truth about a host with field read rules and afterRead hooks: a field a caller may
// not read is absent from that caller's answers, so it is not required; the keys an afterRead hook computes
// are declared with `computed`, so the closed record schemas carry them. Real answers of a list, a get, a
// create and a global, to a caller who may read everything and to one who may not, validate with ajv.
import request, { type Response } from 'supertest';
import type { ReadHookArgs } from '../../lib/config/hooks';
import { generateTypes } from '../../lib';
import { type TestApp, type TestConfig, asUser, createTestApp } from '../helpers/create-test-app';
import { createResponseValidator } from './openapi-validators';

const EDITOR = asUser({ id: '0000000000000000000000e1', role: 'editor' });
const READER = asUser({ id: '0000000000000000000000a1', role: 'reader' });
const editorsOnly = { read: ({ user }: { user: { role?: unknown } | null }) => user?.role === 'editor' };

const CONFIG: TestConfig = {
  collections: [
    {
      slug: 'posts',
      access: { read: () => true, create: () => true },
      fields: {
        title: { type: 'text', required: true },
        body: { type: 'textarea' },
        editorNote: { type: 'text', required: true, default: '-', access: editorsOnly },
        score: { type: 'number', access: editorsOnly },
      },
      computed: {
        wordCount: { type: 'number', required: true, description: 'Words in the body.' },
        excerpt: { type: 'text' },
      },
      hooks: {
        afterRead: [
          ({ doc }: ReadHookArgs) => ({
            ...doc,
            wordCount: typeof doc.body === 'string' ? doc.body.split(/\s+/).filter(Boolean).length : 0,
            ...(typeof doc.body === 'string' && { excerpt: doc.body.slice(0, 10) }),
          }),
        ],
      },
    },
  ],
  globals: [
    {
      slug: 'site',
      access: { read: () => true, update: () => true },
      fields: { title: { type: 'text' }, analytics: { type: 'text', access: editorsOnly } },
      computed: { readAt: { type: 'date', required: true } },
      hooks: { afterRead: [({ doc }: ReadHookArgs) => ({ ...doc, readAt: new Date(0).toISOString() })] },
    },
  ],
};

let t: TestApp;
let validator: ReturnType<typeof createResponseValidator>;
let doc: { components: { schemas: Record<string, { properties: Record<string, unknown>; required?: string[] }> } };

beforeAll(async () => {
  t = await createTestApp(CONFIG);
  const res = await request(t.app).get('/api/docs/openapi.json').expect(200);
  doc = res.body;
  validator = createResponseValidator(res.body);
});
afterAll(() => t.close());
afterEach(() => expect(t.hostErrors).toEqual([]));

function expectValid(res: Response, method: string, path: string): void {
  expect({ status: res.status, path, errors: validator.errorsOf(path, method, res.status, 'application/json', res.body) }).toEqual({ status: res.status, path, errors: [] });
}

describe('answers of a host with field read rules and afterRead hooks validate against the document', () => {
  let id: string;

  it('create (editor and reader)', async () => {
    const created = await request(t.app).post('/api/posts').set(...EDITOR).send({ title: 'One', body: 'three words here', editorNote: 'n', score: 2 }).expect(201);
    expect(created.body).toMatchObject({ editorNote: 'n', score: 2, wordCount: 3, excerpt: 'three word' });
    expectValid(created, 'post', '/posts');
    id = created.body.id;
    const byReader = await request(t.app).post('/api/posts').set(...READER).send({ title: 'Two' }).expect(201);
    expect(byReader.body).not.toHaveProperty('editorNote');
    expect(byReader.body).not.toHaveProperty('excerpt');
    expectValid(byReader, 'post', '/posts');
  });

  it('list (editor and reader)', async () => {
    for (const caller of [EDITOR, READER]) {
      const res = await request(t.app).get('/api/posts').set(...caller).expect(200);
      expect(res.body.data.length).toBe(2);
      expectValid(res, 'get', '/posts');
    }
  });

  it('get (editor, reader and anonymous)', async () => {
    for (const caller of [EDITOR, READER, undefined]) {
      const req = request(t.app).get(`/api/posts/${id}`);
      const res = await (caller ? req.set(...caller) : req).expect(200);
      expect(res.body.wordCount).toBe(3);
      expectValid(res, 'get', '/posts/{id}');
    }
  });

  it('a global (editor and reader)', async () => {
    await request(t.app).patch('/api/globals/site').set(...EDITOR).send({ title: 'Site', analytics: 'ua-1' }).expect(200);
    for (const caller of [EDITOR, READER]) {
      const res = await request(t.app).get('/api/globals/site').set(...caller).expect(200);
      expect(res.body.readAt).toBe(new Date(0).toISOString());
      expectValid(res, 'get', '/globals/site');
    }
  });
});

describe('what the document and the generated types say', () => {
  it('a field with a read rule is not required; computed keys are declared, required only when the host says so', () => {
    const posts = doc.components.schemas.Posts;
    expect(posts.required).toEqual(expect.arrayContaining(['id', 'title', 'body', 'wordCount']));
    expect(posts.required).not.toContain('editorNote');
    expect(posts.required).not.toContain('score');
    expect(posts.required).not.toContain('excerpt');
    expect(posts.properties.wordCount).toEqual({ type: 'number', readOnly: true, description: 'Words in the body.' });
    expect(posts.properties.excerpt).toEqual({ type: ['string', 'null'], readOnly: true });
    // Not a stored field: write bodies do not take it.
    expect(doc.components.schemas.PostsCreate.properties).not.toHaveProperty('wordCount');
    expect(doc.components.schemas.PostsUpdate.properties).not.toHaveProperty('wordCount');
    expect(doc.components.schemas.GlobalSite.required).toEqual(expect.arrayContaining(['title', 'readAt']));
    expect(doc.components.schemas.GlobalSite.required).not.toContain('analytics');
  });

  it('generated types: unreadable fields and optional computed keys may be absent', () => {
    const types = generateTypes(CONFIG);
    const post = types.slice(types.indexOf('export interface Post {'), types.indexOf('}', types.indexOf('export interface Post {')));
    expect(post).toContain('  editorNote?: string;');
    expect(post).toContain('  score?: number | null;');
    expect(post).toContain('  wordCount: number;');
    expect(post).toContain('  excerpt?: string | null;');
    const create = types.slice(types.indexOf('export interface PostCreate {'));
    expect(create.slice(0, create.indexOf('}'))).not.toContain('wordCount');
    expect(types).toContain('  readAt: string;');
  });
});

describe('a computed key is not a stored field', () => {
  it.each([
    ['create', 'post', '/api/posts'],
    ['update', 'patch', 'ID'],
  ])('a %s that sets it is a 400 like an unknown field, and writes nothing', async (_name, method, path) => {
    const target = path === 'ID' ? `/api/posts/${(await request(t.app).get('/api/posts').set(...EDITOR)).body.data[0].id}` : path;
    const before = await request(t.app).get('/api/posts/count').set(...EDITOR);
    const res = await (request(t.app) as unknown as Record<string, (p: string) => request.Test>)[method](target).set(...EDITOR).send({ title: 'Three', editorNote: 'x', wordCount: 9 });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([expect.objectContaining({ field: 'wordCount', code: 'unknown_field' })]);
    expect((await request(t.app).get('/api/posts/count').set(...EDITOR)).body).toEqual(before.body);
  });

  it('a where, sort or fields naming it is a 400 like an unknown field', async () => {
    for (const query of ['where[wordCount][gt]=1', 'sort=wordCount', 'fields=wordCount']) {
      const res = await request(t.app).get(`/api/posts?${query}`).set(...EDITOR);
      expect({ query, status: res.status }).toEqual({ query, status: 400 });
    }
  });

  it('a global update that sets it is a 400', async () => {
    const res = await request(t.app).patch('/api/globals/site').set(...EDITOR).send({ readAt: 'x' });
    expect(res.status).toBe(400);
  });
});
