// GET /schema: each caller sees the collections, globals and fields it may see, with what it may do on each
// (true, false, 'some'); hidden and read-denied fields are absent, write-only ones say so, field write rules
// and API key scopes apply. Every credential a request may carry: JWT bearer, API key, host req.user, none.
import request from 'supertest';
import type { AccessArgs, CallerSchema, SchemaCollection, SchemaGlobal } from '../../lib';
import { asUser } from '../helpers/create-test-app';
import { type AuthTestApp, type Registered, PROBLEM, bearer, createAuthTestApp, registerAdmin, registerUser } from '../auth/auth-test-app';

const editor = ({ user }: AccessArgs) => user?.role === 'editor' || user?.role === 'admin';
const admin = ({ user }: AccessArgs) => user?.role === 'admin';

let t: AuthTestApp;
beforeAll(async () => {
  t = await createAuthTestApp({
    collections: [
      {
        slug: 'articles',
        softDelete: true,
        access: {
          read: () => true,
          // Writers edit their own articles; nobody deletes one.
          update: ({ user }) => (user ? { author: { eq: user.id } } : false),
          delete: () => false,
        },
        fields: {
          title: { type: 'text', required: true },
          author: { type: 'relationship', relationTo: 'users' },
          category: { type: 'select', options: ['news', 'howto'], default: 'news' },
          tags: { type: 'select', options: ['a', 'b'], hasMany: true },
          notes: { type: 'text', hidden: true },
          margin: { type: 'number', access: { read: admin } },
          slug: { type: 'text', unique: true, access: { update: () => false } },
          featured: { type: 'boolean', access: { create: editor, update: editor } },
          keywords: { type: 'array', of: 'string' },
          cover: { type: 'upload' },
        },
      },
      { slug: 'pages', versions: { drafts: true }, access: { read: () => true, publish: editor }, fields: { title: { type: 'text' } } },
      { slug: 'memos', versions: true, access: { read: editor, create: editor, update: editor, delete: admin }, fields: { body: { type: 'text' } } },
    ],
    extra: {
      globals: [
        { slug: 'site', access: { read: () => true, update: admin }, fields: { name: { type: 'text', default: 'My site' }, apiSecret: { type: 'text', access: { read: admin } } } },
        { slug: 'billing', access: { read: admin, update: admin }, fields: { plan: { type: 'text' } } },
      ],
      uploads: { allowedMimeTypes: ['image/*'] },
    },
  });
});
afterAll(() => t.close());
afterEach(() => expect(t.hostErrors).toEqual([]));

async function schemaOf(...header: Array<[string, string]>): Promise<CallerSchema> {
  let req = request(t.app).get('/api/schema');
  for (const [name, value] of header) req = req.set(name, value);
  const res = await req;
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  return res.body as CallerSchema;
}

function collection(schema: CallerSchema, slug: string): SchemaCollection {
  const found = schema.collections.find((c) => c.slug === slug);
  if (!found) throw new Error(`no ${slug} in ${JSON.stringify(schema.collections.map((c) => c.slug))}`);
  return found;
}

function global(schema: CallerSchema, slug: string): SchemaGlobal {
  const found = schema.globals.find((g) => g.slug === slug);
  if (!found) throw new Error(`no global ${slug}`);
  return found;
}

const names = (fields: { name: string }[]) => fields.map((f) => f.name);
const field = (c: { fields: SchemaCollection['fields'] }, name: string) => c.fields.find((f) => f.name === name);

async function apiKey(user: Registered, scopes: string[]): Promise<string> {
  const res = await request(t.app).post('/api/users/api-keys').set(...bearer(user.accessToken)).send({ name: 'k', scopes });
  expect(res.status).toBe(201);
  return res.body.apiKey.key as string;
}

describe('GET /schema, anonymous', () => {
  it('lists only what an anonymous caller may do something on, with its rights', async () => {
    const schema = await schemaOf();
    // posts (default rules), users (auth defaults), memos (editors) and the billing global give it nothing.
    expect(schema.collections.map((c) => c.slug)).toEqual(['articles', 'pages']);
    expect(schema.globals.map((g) => g.slug)).toEqual(['site']);
    expect(collection(schema, 'articles')).toMatchObject({ auth: false, softDelete: true, requireIfMatch: false, access: { read: true, create: false, update: false, delete: false } });
    expect(collection(schema, 'articles').versions).toBeUndefined();
    expect(collection(schema, 'pages')).toMatchObject({
      versions: { drafts: true },
      access: { read: true, create: false, update: false, delete: false, publish: false, readDrafts: false, readVersions: false },
    });
    expect(global(schema, 'site').access).toEqual({ read: true, update: false });
  });

  it('describes the fields: types, options, relations, defaults, lists; system fields marked', async () => {
    const articles = collection(await schemaOf(), 'articles');
    expect(field(articles, 'id')).toEqual({ name: 'id', type: 'id', required: false, unique: true, system: true });
    expect(field(articles, 'title')).toEqual({ name: 'title', type: 'text', required: true, unique: false });
    // `users` is nothing an anonymous caller may use: the relationship does not name it.
    expect(field(articles, 'author')).toEqual({ name: 'author', type: 'relationship', required: false, unique: false });
    expect(field(articles, 'category')).toEqual({ name: 'category', type: 'select', required: false, unique: false, options: ['news', 'howto'], default: 'news' });
    expect(field(articles, 'tags')).toMatchObject({ type: 'select', hasMany: true });
    expect(field(articles, 'slug')).toMatchObject({ unique: true });
    expect(field(articles, 'createdAt')).toMatchObject({ type: 'date', system: true });
  });

  it("gives an array field its element's type (`of`, the alias folded), and an upload field the files' REST name", async () => {
    const articles = collection(await schemaOf(), 'articles');
    expect(field(articles, 'keywords')).toEqual({ name: 'keywords', type: 'array', of: 'text', hasMany: true, required: false, unique: false });
    expect(field(articles, 'cover')).toEqual({ name: 'cover', type: 'upload', relationTo: 'uploads', required: false, unique: false });
    expect(field(articles, 'tags')?.of).toBeUndefined();
  });

  it('lists no id on a global, which has none (its record is the fields and the timestamps)', async () => {
    const site = global(await schemaOf(), 'site');
    expect(names(site.fields).sort()).toEqual(['createdAt', 'name', 'updatedAt']);
    const read = await request(t.app).get('/api/globals/site');
    expect(Object.keys(read.body).sort()).toEqual(['createdAt', 'name', 'updatedAt']);
  });

  it('leaves out hidden fields and fields the read rules deny', async () => {
    const schema = await schemaOf();
    expect(names(collection(schema, 'articles').fields)).not.toContain('notes');
    expect(names(collection(schema, 'articles').fields)).not.toContain('margin');
    expect(names(global(schema, 'site').fields)).toContain('name');
    expect(names(global(schema, 'site').fields)).not.toContain('apiSecret');
    expect(JSON.stringify(schema)).not.toMatch(/notes|margin|apiSecret/);
  });

  it('is a read as every other: an ETag (304 on If-None-Match), cached privately per caller', async () => {
    const user = await registerUser(t);
    const res = await request(t.app).get('/api/schema').set(...bearer(user.accessToken));
    expect(res.headers).toMatchObject({ 'cache-control': 'private, no-cache', vary: expect.stringContaining('Authorization'), etag: expect.stringMatching(/^"/) });
    const again = await request(t.app).get('/api/schema').set(...bearer(user.accessToken)).set('If-None-Match', res.headers.etag);
    expect(again.status).toBe(304);
    expect((await request(t.app).get('/api/schema')).headers['cache-control']).toBe('public, no-cache');
  });

  it('is listed in api.routes', () => {
    expect(t.api.routes).toContainEqual(expect.objectContaining({ method: 'GET', path: '/schema' }));
  });
});

describe('GET /schema, a JWT bearer user', () => {
  it("answers 'some' where a rule answers a where, and its own rights elsewhere", async () => {
    const user = await registerUser(t);
    const schema = await schemaOf(bearer(user.accessToken));
    expect(schema.collections.map((c) => c.slug)).toEqual(['users', 'posts', 'articles', 'pages']);
    expect(collection(schema, 'articles').access).toEqual({ read: true, create: true, update: 'some', delete: false });
    expect(collection(schema, 'posts').access).toEqual({ read: true, create: true, update: true, delete: true });
    // Pages: the update rule is the default (any user); publish is editors'; readDrafts and readVersions follow update.
    expect(collection(schema, 'pages').access).toEqual({ read: true, create: true, update: true, delete: true, publish: false, readDrafts: true, readVersions: true });
  });

  it('marks the fields its write rules refuse: readOnlyOnCreate, readOnlyOnUpdate', async () => {
    const user = await registerUser(t);
    const articles = collection(await schemaOf(bearer(user.accessToken)), 'articles');
    expect(field(articles, 'featured')).toMatchObject({ readOnlyOnCreate: true, readOnlyOnUpdate: true });
    expect(field(articles, 'slug')).toMatchObject({ readOnlyOnUpdate: true });
    expect(field(articles, 'slug')?.readOnlyOnCreate).toBeUndefined();
    expect(field(articles, 'title')?.readOnlyOnCreate).toBeUndefined();
    expect(field(articles, 'title')?.readOnlyOnUpdate).toBeUndefined();
    // System fields are never the caller's to set, and say so by `system`.
    expect(field(articles, 'id')?.readOnlyOnCreate).toBeUndefined();
  });

  it('describes its auth collection: its own account, a write-only password only admins set, no token fields', async () => {
    const user = await registerUser(t);
    const users = collection(await schemaOf(bearer(user.accessToken)), 'users');
    expect(users).toMatchObject({ auth: true, access: { read: 'some', create: false, update: 'some', delete: false } });
    expect(field(users, 'password')).toEqual({ name: 'password', type: 'text', required: true, unique: false, writeOnly: true, readOnlyOnUpdate: true });
    expect(field(users, 'email')).toMatchObject({ unique: true, readOnlyOnUpdate: true });
    expect(field(users, 'role')).toMatchObject({ readOnlyOnUpdate: true });
    expect(field(users, 'bio')?.readOnlyOnUpdate).toBeUndefined();
    for (const hidden of ['verificationToken', 'verificationExpiry', 'resetToken', 'resetExpiry']) expect(names(users.fields)).not.toContain(hidden);
  });
});

describe('GET /schema, an admin', () => {
  it('may do everything its rules allow, and reads the fields the read rules keep for admins', async () => {
    const user = await registerAdmin(t);
    const schema = await schemaOf(bearer(user.accessToken));
    expect(schema.collections.map((c) => c.slug)).toEqual(['users', 'posts', 'articles', 'pages', 'memos']);
    expect(collection(schema, 'users').access).toEqual({ read: true, create: true, update: true, delete: true });
    expect(collection(schema, 'memos').access).toEqual({ read: true, create: true, update: true, delete: true, readVersions: true });
    expect(collection(schema, 'pages').access.publish).toBe(true);
    expect(names(collection(schema, 'articles').fields)).toContain('margin');
    expect(names(collection(schema, 'articles').fields)).not.toContain('notes');
    expect(field(collection(schema, 'articles'), 'featured')?.readOnlyOnCreate).toBeUndefined();
    expect(field(collection(schema, 'users'), 'password')).toEqual({ name: 'password', type: 'text', required: true, unique: false, writeOnly: true });
    expect(global(schema, 'billing').access).toEqual({ read: true, update: true });
    expect(names(global(schema, 'site').fields)).toContain('apiSecret');
  });
});

describe('GET /schema, an API key', () => {
  it('a read-only key may read as its user does, and write nothing', async () => {
    const user = await registerUser(t);
    const key = await apiKey(user, ['read']);
    const schema = await schemaOf(['X-API-Key', key]);
    expect(collection(schema, 'articles').access).toEqual({ read: true, create: false, update: false, delete: false });
    expect(collection(schema, 'posts').access).toEqual({ read: true, create: false, update: false, delete: false });
    expect(collection(schema, 'pages').access).toMatchObject({ create: false, update: false, publish: false, readDrafts: true, readVersions: true });
  });

  it('a write-only key reads only what anonymous callers may, and writes as its user does', async () => {
    const user = await registerUser(t);
    const key = await apiKey(user, ['write']);
    const schema = await schemaOf(bearer(key));
    expect(collection(schema, 'articles').access).toEqual({ read: true, create: true, update: 'some', delete: false });
    expect(collection(schema, 'posts').access).toEqual({ read: false, create: true, update: true, delete: true });
  });
});

describe("GET /schema, the host's req.user", () => {
  it('an editor of the host sees what editors may do', async () => {
    const schema = await schemaOf(asUser({ id: '0123456789abcdef01234567', role: 'editor' }));
    expect(collection(schema, 'memos').access).toEqual({ read: true, create: true, update: true, delete: false, readVersions: true });
    expect(collection(schema, 'pages').access.publish).toBe(true);
    expect(field(collection(schema, 'articles'), 'featured')?.readOnlyOnCreate).toBeUndefined();
    expect(names(collection(schema, 'articles').fields)).not.toContain('margin');
  });
});

describe('GET /schema, refusals', () => {
  it('401 problem+json for a bad credential, as every route', async () => {
    const res = await request(t.app).get('/api/schema').set(...bearer('not-a-token'));
    expect(res.status).toBe(401);
    expect(res.headers['content-type']).toMatch(PROBLEM);
  });

  it('a slug named schema is reserved', async () => {
    await expect(createAuthTestApp({ collections: [{ slug: 'schema', fields: { a: { type: 'text' } } }] })).rejects.toThrow(/schema/);
  });
});
