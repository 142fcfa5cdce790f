// The document tells the truth: it is valid OpenAPI 3.1, names every route the dispatcher mounts (and
// nothing else), and real answers of every route - each list envelope, counts, records, writes, globals, auth,
// API keys, the caller's schema, docs, errors, uploads and populated upload fields - validate against the
// schemas it gives them.
import request, { type Response } from 'supertest';
import type { EmailMessage } from '../../lib';
import { GOOD_PASSWORD, SECRET, FAST_HASH, registerAdmin, registerUser, tokenFromMail, uniqueEmail } from '../auth/auth-test-app';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';
import { pngBytes } from '../uploads/upload-helpers';
import { createResponseValidator, lintWithRedocly, matchTemplate, validateOpenApiDocument } from './openapi-validators';

type Doc = Parameters<typeof createResponseValidator>[0] & {
  servers: { url: string }[];
  components: { schemas: Record<string, { properties?: Record<string, unknown>; required?: string[] }> };
};

let t: TestApp;
let doc: Doc;
let validator: ReturnType<typeof createResponseValidator>;
const exercised = new Set<string>();
const mails: EmailMessage[] = [];

/** The JSON schema the document gives an answer. */
const answerSchema = (path: string, method: string, status: number) =>
  (doc.paths[path][method].responses[String(status)].content!['application/json'].schema as { properties: Record<string, unknown>; required: string[] });

beforeAll(async () => {
  t = await createTestApp({
    auth: { jwtSecret: SECRET, passwordHash: FAST_HASH },
    email: { send: (mail) => void mails.push(mail) },
    collections: [
      { slug: 'users', auth: true, fields: { bio: { type: 'text' }, secretNote: { type: 'text', hidden: true } } },
      {
        slug: 'posts',
        softDelete: true,
        fields: {
          title: { type: 'text', required: true, maxLength: 200 },
          status: { type: 'select', options: ['draft', 'published'], default: 'draft' },
          views: { type: 'number', min: 0 },
          tags: { type: 'array', of: 'text' },
          published: { type: 'date' },
          owner: { type: 'relationship', relationTo: 'users' },
          meta: { type: 'json' },
          code: { type: 'text', unique: true },
        },
      },
    ],
    globals: [{ slug: 'site', fields: { title: { type: 'text' }, theme: { type: 'select', options: ['light', 'dark'] } } }],
  });
  const res = await request(t.app).get('/api/docs/openapi.json').expect(200);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  doc = res.body as Doc;
  validator = createResponseValidator(doc);
});
afterAll(() => t.close());
afterEach(() => expect(t.hostErrors).toEqual([]));

/** Asserts the answer matches the document's schema for it and records the operation as exercised. */
function expectDocumented(res: Response, method: string, path: string): Response {
  const template = matchTemplate(doc, path);
  expect(template).toBeDefined();
  const operation = doc.paths[template!][method.toLowerCase()] as unknown as { operationId: string; responses: Record<string, unknown> };
  expect(operation).toBeDefined();
  exercised.add(operation.operationId);
  const mediaType = String(res.headers['content-type'] ?? '').split(';')[0];
  if (res.status >= 300 && res.status < 400) {
    expect(Object.keys(operation.responses)).toContain(String(res.status));
    return res;
  }
  if (res.status >= 400) expect(mediaType).toBe('application/problem+json');
  // Every status a route answers with is one it declares (5xx aside: those fall to `default`).
  expect({ operation: operation.operationId, status: res.status, declared: res.status < 500 && String(res.status) in operation.responses }).toEqual({
    operation: operation.operationId,
    status: res.status,
    declared: true,
  });
  const declared = operation.responses[String(res.status)] as { content?: Record<string, unknown> } | undefined;
  const documentedType = declared?.content && !declared.content[mediaType] && declared.content['*/*'] ? '*/*' : mediaType;
  const body = /json$/.test(mediaType) ? res.body : res.text;
  expect({ status: res.status, path, errors: validator.errorsOf(path, method, res.status, documentedType, body) }).toEqual({ status: res.status, path, errors: [] });
  return res;
}

const call = async (method: 'get' | 'post' | 'patch' | 'delete' | 'put', path: string, options: { token?: string; body?: unknown; expect: number }) => {
  let req = request(t.app)[method](`/api${path}`);
  if (options.token) req = req.set('Authorization', `Bearer ${options.token}`);
  const res = options.body === undefined ? await req : await req.send(options.body as object);
  expect({ path, status: res.status, body: res.body }).toMatchObject({ path, status: options.expect });
  return expectDocumented(res, method, path.split('?')[0]);
};

describe('the document', () => {
  it('is valid OpenAPI 3.1', () => {
    const result = validateOpenApiDocument(doc);
    expect(result).toEqual({ valid: true });
  });

  it("passes Redocly's recommended lint: nothing but the public docs routes of a router without a rate limit, which cannot fail", () => {
    const problems = lintWithRedocly(doc);
    const summary = (p: (typeof problems)[number]) => `${p.ruleId} at ${p.location[0]?.pointer}`;
    // This router has no rate limit, so its public docs GETs have no 4xx to declare (docs/openapi.md says so).
    expect(problems.map(summary).sort()).toEqual(['operation-4xx-response at #/paths/~1docs/get/responses', 'operation-4xx-response at #/paths/~1docs~1openapi.json/get/responses']);
    expect(problems.map((p) => p.severity)).toEqual(['warn', 'warn']);
  });

  it('names the mount path as its server', () => {
    expect(doc.servers).toEqual([expect.objectContaining({ url: '/api' })]);
  });

  it('has every route the dispatcher mounts, with its operationId, and no other operation', () => {
    const documented = Object.entries(doc.paths).flatMap(([template, item]) =>
      Object.entries(item).map(([method, op]) => `${method.toUpperCase()} ${template} ${(op as unknown as { operationId: string }).operationId}`),
    );
    // Routes that only explain why nothing is there (draft paths where drafts are off) are left out of it.
    const mounted = t.api.routes.filter((r) => !r.undocumented).map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, '{$1}')} ${r.operationId}`);
    expect(mounted.length).toBeGreaterThanOrEqual(30);
    expect([...documented].sort()).toEqual([...mounted].sort());
    expect(new Set(t.api.routes.map((r) => r.operationId)).size).toBe(t.api.routes.length);
  });

  it('leaves hidden fields out and shows the password only in write bodies', () => {
    const schemas = doc.components.schemas;
    expect(Object.keys(schemas.Users.properties!)).toEqual(expect.arrayContaining(['id', 'email', 'name', 'role', 'verified', 'bio', 'createdAt', 'updatedAt']));
    for (const name of ['Users', 'UsersCreate', 'UsersUpdate']) {
      for (const hidden of ['secretNote', 'resetToken', 'verificationToken', 'resetExpiry', 'verificationExpiry']) {
        expect(schemas[name].properties).not.toHaveProperty(hidden);
      }
    }
    expect(schemas.Users.properties).not.toHaveProperty('password');
    expect(schemas.UsersCreate.properties).toHaveProperty('password', expect.objectContaining({ writeOnly: true }));
    expect(schemas.PostsCreate).toMatchObject({ required: ['title'], properties: { status: { enum: ['draft', 'published', null], default: 'draft' } } });
  });

  it('types the user of register, login and verify-email, and requires every key those answers always send', () => {
    // Shapes are the route table's vocabulary: none may reach the document as a schema.
    expect(JSON.stringify(doc)).not.toMatch(/"kind":/);
    const users = { $ref: '#/components/schemas/Users' };
    const login = answerSchema('/users/login', 'post', 200);
    expect(login.properties.user).toEqual(users);
    expect([...login.required].sort()).toEqual(['accessToken', 'expiresIn', 'refreshToken', 'token', 'user']);
    const verified = answerSchema('/users/verify-email', 'post', 200);
    expect(verified.properties.user).toEqual(users);
    expect([...verified.required].sort()).toEqual(['message', 'user']);
    // Register answers { id, email, name } (not the whole record), and tokens unless verification comes first.
    const registered = answerSchema('/users/register', 'post', 201);
    expect(registered.properties).toEqual({
      user: {
        type: 'object',
        properties: { id: expect.objectContaining({ type: 'string' }), email: expect.objectContaining({ type: 'string' }), name: { type: ['string', 'null'] } },
        required: ['id', 'email', 'name'],
        additionalProperties: false,
      },
      accessToken: { type: 'string' },
      refreshToken: { type: 'string' },
      message: { type: 'string' },
    });
    expect([...registered.required].sort()).toEqual(['accessToken', 'message', 'refreshToken', 'user']);
    expect([...answerSchema('/users/refresh', 'post', 200).required].sort()).toEqual(['accessToken', 'expiresIn', 'refreshToken']);
    expect([...answerSchema('/users/change-password', 'post', 200).required].sort()).toEqual(['accessToken', 'expiresIn', 'message', 'refreshToken']);
  });

  it("describes register's body as what register accepts: the collection's writable fields but role and verified", () => {
    const body = (doc.paths['/users/register'].post as unknown as { requestBody: { content: Record<string, { schema: { properties: Record<string, unknown>; required: string[] } }> } })
      .requestBody.content['application/json'].schema;
    expect(Object.keys(body.properties).sort()).toEqual(['bio', 'email', 'name', 'password']);
    expect(body.properties.password).toMatchObject({ writeOnly: true });
    expect([...body.required].sort()).toEqual(['email', 'password']);
  });

  it('describes API keys exactly: every field a key has in a list, the secret only on create', () => {
    const listed = answerSchema('/users/api-keys', 'get', 200).properties.apiKeys as { items: { required: string[]; additionalProperties: boolean } };
    expect([...listed.items.required].sort()).toEqual(['createdAt', 'expiresAt', 'id', 'lastUsedAt', 'name', 'scopes']);
    expect(listed.items.additionalProperties).toBe(false);
    const created = answerSchema('/users/api-keys', 'post', 201).properties.apiKey as { required: string[]; properties: Record<string, unknown> };
    expect([...created.required].sort()).toEqual(['createdAt', 'expiresAt', 'id', 'key', 'name', 'scopes']);
    expect(created.properties).not.toHaveProperty('lastUsedAt');
  });
});

describe('real answers match the document', () => {
  let user: Awaited<ReturnType<typeof registerUser>>;
  let admin: Awaited<ReturnType<typeof registerAdmin>>;
  let postId: string;

  beforeAll(async () => {
    admin = await registerAdmin(t);
    user = await registerUser(t);
  });

  it('auth: register, login, refresh, me, logout, logout-all, e-mail flows', async () => {
    await call('post', '/users/register', { body: { email: uniqueEmail(), password: GOOD_PASSWORD, name: 'Ann', bio: 'Hi' }, expect: 201 });
    const login = await call('post', '/users/login', { body: { email: user.email, password: user.password }, expect: 200 });
    await call('post', '/users/login', { body: { email: user.email, password: 'wrong-Passw0rd!' }, expect: 401 });
    await call('post', '/users/refresh', { body: { refreshToken: login.body.refreshToken }, expect: 200 });
    await call('get', '/users/me', { token: user.accessToken, expect: 200 });
    await call('get', '/users/me', { expect: 401 });
    const other = await registerUser(t);
    await call('post', '/users/logout', { body: { refreshToken: other.refreshToken }, expect: 200 });
    await call('post', '/users/logout-all', { token: other.accessToken, expect: 200 });
    await call('post', '/users/change-password', { token: other.accessToken, body: { currentPassword: 'wrong-Passw0rd!', password: 'New-passw0rd!' }, expect: 400 });
    await call('post', '/users/change-password', { token: other.accessToken, body: { currentPassword: other.password, password: 'New-passw0rd!' }, expect: 200 });
    await call('post', '/users/forgot-password', { body: { email: user.email }, expect: 200 });
    await call('post', '/users/reset-password', { body: { token: 'nope', password: GOOD_PASSWORD }, expect: 400 });
    await call('post', '/users/send-verification', { body: { email: user.email }, expect: 200 });
    await call('post', '/users/verify-email', { body: { token: 'nope' }, expect: 400 });
    const verified = await call('post', '/users/verify-email', { body: { token: tokenFromMail(mails, other.email, /Verify/) }, expect: 200 });
    expect(verified.body.user).toMatchObject({ id: other.id, verified: true });
    await call('post', '/users/register', { body: { email: 'not-an-address', password: GOOD_PASSWORD }, expect: 400 });
  });

  it('API keys: create, list, use, revoke', async () => {
    const created = await call('post', '/users/api-keys', { token: user.accessToken, body: { name: 'ci', scopes: ['read'] }, expect: 201 });
    await call('get', '/users/api-keys', { token: user.accessToken, expect: 200 });
    await call('get', '/posts', { token: created.body.apiKey.key, expect: 200 });
    await call('delete', `/users/api-keys/${created.body.apiKey.id}`, { token: user.accessToken, expect: 200 });
    await call('delete', `/users/api-keys/${created.body.apiKey.id}`, { token: user.accessToken, expect: 404 });
  });

  it('collections: create (one and a batch), get, update, list in every envelope, count, delete, restore', async () => {
    const created = await call('post', '/posts', {
      token: admin.accessToken,
      body: { title: 'Hello', views: 3, tags: ['a'], published: '2024-05-01T10:00:00.000Z', owner: user.id, meta: { any: [1, 'x'] }, code: 'c1' },
      expect: 201,
    });
    postId = created.body.id;
    await call('post', '/posts', { token: admin.accessToken, body: { data: [{ title: 'B1' }, { title: 'B2', status: 'published' }] }, expect: 201 });
    await call('post', '/posts', { token: admin.accessToken, body: { title: 'Dup', code: 'c1' }, expect: 409 });
    await call('post', '/posts', { token: admin.accessToken, body: { title: 'x', nope: 1 }, expect: 400 });
    await call('get', `/posts/${postId}`, { token: admin.accessToken, expect: 200 });
    await call('get', `/posts/${postId}?depth=1`, { token: admin.accessToken, expect: 200 });
    const full = await call('get', `/posts/${postId}`, { token: admin.accessToken, expect: 200 });
    // `fields=` answers the selection only: the record's schema (every field required) describes the
    // answer without it, so this one is checked as the selected part of a valid record.
    const selected = await request(t.app).get(`/api/posts/${postId}?fields=title`).set('Authorization', `Bearer ${admin.accessToken}`).expect(200);
    expect(Object.keys(selected.body).sort()).toEqual(['id', 'title']);
    expect(validator.componentErrors('Posts', { ...full.body, ...selected.body })).toEqual([]);
    await call('get', '/posts/000000000000000000000000', { token: admin.accessToken, expect: 404 });
    await call('patch', `/posts/${postId}`, { token: admin.accessToken, body: { views: 4, meta: null }, expect: 200 });

    const page = await call('get', '/posts?perPage=2', { token: admin.accessToken, expect: 200 });
    expect(page.body.meta).toHaveProperty('total');
    const docs = await call('get', '/posts?limit=2&depth=1', { token: admin.accessToken, expect: 200 });
    expect(docs.body).toHaveProperty('docs');
    const cursor = await call('get', '/posts?cursor=&perPage=2', { token: admin.accessToken, expect: 200 });
    expect(cursor.body.meta).toHaveProperty('nextCursor');
    await call('get', '/posts?count=false', { token: admin.accessToken, expect: 200 });
    await call('get', '/posts?limit=1&count=false', { token: admin.accessToken, expect: 200 });
    await call('get', '/posts?include=owner&where[title][like]=hel', { token: admin.accessToken, expect: 200 });
    await call('get', '/posts?where={bad', { token: admin.accessToken, expect: 400 });
    const counted = await call('get', '/posts/count?filter=status:published&includeDeleted=true', { token: admin.accessToken, expect: 200 });
    expect(counted.body).toEqual({ total: 1 });
    await call('get', '/posts/count?where={bad', { token: admin.accessToken, expect: 400 });
    await call('get', '/users/count', { token: user.accessToken, expect: 200 });
    await call('get', '/users', { token: user.accessToken, expect: 200 });
    await call('get', `/users/${user.id}`, { token: user.accessToken, expect: 200 });
    await call('patch', `/users/${user.id}`, { token: user.accessToken, body: { bio: 'hi' }, expect: 200 });
    await call('post', '/users', { token: admin.accessToken, body: { email: uniqueEmail(), password: GOOD_PASSWORD }, expect: 201 });

    const bulk = await call('patch', `/posts?where=${encodeURIComponent(JSON.stringify({ id: { eq: postId } }))}`, { token: admin.accessToken, body: { views: 5 }, expect: 200 });
    expect(bulk.body.meta).toEqual({ matched: 1, updated: 1, failed: 0 });
    await call('patch', '/posts?where={}&dryRun=true', { token: admin.accessToken, body: { views: 5 }, expect: 200 });
    await call('patch', '/posts', { token: admin.accessToken, body: { views: 5 }, expect: 400 });
    await call('delete', '/posts?where={}&dryRun=true', { token: admin.accessToken, expect: 200 });
    await call('delete', `/posts?where=${encodeURIComponent(JSON.stringify({ title: { eq: 'no such title' } }))}`, { token: admin.accessToken, expect: 200 });
    await call('patch', `/users?where=${encodeURIComponent(JSON.stringify({ id: { eq: user.id } }))}`, { token: user.accessToken, body: { bio: 'bulk' }, expect: 200 });
    await call('delete', '/users?where={}&dryRun=true', { token: admin.accessToken, expect: 200 });
    await call('delete', `/posts/${postId}`, { token: admin.accessToken, expect: 200 });
    await call('get', `/posts/${postId}?includeDeleted=true`, { token: admin.accessToken, expect: 200 });
    await call('post', `/posts/${postId}/restore`, { token: admin.accessToken, expect: 200 });
    await call('delete', `/posts/${postId}?permanent=true`, { token: admin.accessToken, expect: 200 });
    const spare = await registerUser(t);
    await call('delete', `/users/${spare.id}`, { token: admin.accessToken, expect: 200 });
  });

  it('globals: read, save, update', async () => {
    await call('get', '/globals/site', { token: admin.accessToken, expect: 200 });
    await call('post', '/globals/site', { token: admin.accessToken, body: { title: 'Site' }, expect: 200 });
    await call('patch', '/globals/site', { token: admin.accessToken, body: { theme: 'dark' }, expect: 200 });
    await call('patch', '/globals/site', { token: admin.accessToken, body: { theme: 'blue' }, expect: 400 });
  });

  it("the caller's schema: an admin's, a user's, an anonymous caller's, a bad credential", async () => {
    await call('get', '/schema', { token: admin.accessToken, expect: 200 });
    await call('get', '/schema', { token: user.accessToken, expect: 200 });
    await call('get', '/schema', { expect: 200 });
    await call('get', '/schema', { token: 'not-a-token', expect: 401 });
  });

  it('docs: the UI page (after its slash redirect), its assets, the document, an unknown asset', async () => {
    const redirect = await call('get', '/docs', { expect: 302 });
    expect(redirect.headers.location).toBe('docs/');
    const page = await call('get', '/docs/', { expect: 200 });
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).toContain('swagger-ui-bundle.js');
    const init = await call('get', '/docs/swagger-ui-init.js', { expect: 200 });
    expect(init.text).toContain('"swaggerUrl": "openapi.json"');
    await call('get', '/docs/swagger-ui.css', { expect: 200 });
    await call('get', '/docs/openapi.json', { expect: 200 });
    await call('get', '/docs/package.json', { expect: 404 });
  });

  it('the checks can fail: a leaked hidden field, a mixed envelope, a missing field, an untyped user, a missing token', () => {
    const at = '2024-05-01T10:00:00.000Z';
    const record = { id: '0123456789abcdef01234567', title: 'x', status: null, views: null, tags: null, published: null, owner: null, meta: null, code: null, createdAt: at, updatedAt: at, deletedAt: null };
    const ok = (body: unknown) => validator.errorsOf('/posts', 'get', 200, 'application/json', body);
    expect(ok({ data: [record], meta: { page: 1, perPage: 10, total: 1, totalPages: 1 } })).toEqual([]);
    expect(ok({ data: [{ ...record, secretNote: 'leak' }], meta: { page: 1, perPage: 10 } })).not.toEqual([]);
    expect(ok({ data: [record], meta: { page: 1, perPage: 10, nextCursor: null } })).not.toEqual([]);
    expect(ok({ docs: [record], page: 1 })).not.toEqual([]);
    const { views: _views, ...withoutViews } = record;
    expect(ok({ data: [withoutViews], meta: { page: 1, perPage: 10 } })).not.toEqual([]);
    expect(validator.errorsOf('/users/me', 'get', 200, 'application/json', { email: 'a@b.co', password: 'x' })).not.toEqual([]);
    const login = { user: { id: 'x' }, accessToken: 'a', refreshToken: 'r', token: 'a', expiresIn: 900 };
    expect(validator.errorsOf('/users/login', 'post', 200, 'application/json', login)).not.toEqual([]);
    const { accessToken: _accessToken, ...tokenless } = { ...login, user: { id: record.id, email: 'a@b.co', name: null } };
    expect(validator.errorsOf('/users/register', 'post', 201, 'application/json', { ...tokenless, message: 'hi' })).not.toEqual([]);
  });

  it('a method a path does not serve is a 405 problem with Allow', async () => {
    const res = await request(t.app).put('/api/posts').send({});
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('DELETE, GET, HEAD, PATCH, POST');
    expect(validator.componentErrors('Problem', res.body)).toEqual([]);
  });

  it('every mounted route was exercised above', () => {
    const missing = t.api.routes.filter((r) => !r.undocumented).map((r) => r.operationId).filter((id) => !exercised.has(id));
    expect(missing).toEqual([]);
  });
});

describe('a collection that wants verification before login', () => {
  let v: TestApp;
  afterAll(() => v?.close());

  it('documents register answering null tokens, and does answer so', async () => {
    v = await createTestApp({
      auth: { jwtSecret: SECRET, passwordHash: FAST_HASH },
      email: { send: () => undefined },
      collections: [{ slug: 'members', auth: { requireVerification: true }, fields: {} }],
    });
    const document = (await request(v.app).get('/api/docs/openapi.json').expect(200)).body as Doc;
    const registered = document.paths['/members/register'].post.responses['201'].content!['application/json'].schema as { properties: Record<string, unknown> };
    expect(registered.properties).toMatchObject({ accessToken: { type: 'null' }, refreshToken: { type: 'null' } });
    const res = await request(v.app).post('/api/members/register').send({ email: uniqueEmail(), password: GOOD_PASSWORD }).expect(201);
    expect(res.body).toMatchObject({ accessToken: null, refreshToken: null, user: { name: null } });
    expect(createResponseValidator(document).errorsOf('/members/register', 'post', 201, 'application/json', res.body)).toEqual([]);
    expect(v.hostErrors).toEqual([]);
  });
});

describe('uploads: the file record, and upload fields populated or not', () => {
  const owner = asUser({ id: '000000000000000000000001' });
  const stranger = asUser({ id: '000000000000000000000002' });
  let u: TestApp;
  let document: Doc;
  let check: ReturnType<typeof createResponseValidator>;
  afterAll(() => u?.close());

  beforeAll(async () => {
    u = await createTestApp({
      // Each file is readable by its uploader only, so population answers differ by caller.
      uploads: { access: { read: ({ user }) => (user ? { uploadedBy: { eq: user.id } } : false) } },
      collections: [
        {
          slug: 'posts',
          access: { read: () => true, create: () => true },
          fields: { title: { type: 'text', required: true }, cover: { type: 'upload' }, gallery: { type: 'upload', hasMany: true } },
        },
      ],
    });
    document = (await request(u.app).get('/api/docs/openapi.json').expect(200)).body as Doc;
    check = createResponseValidator(document);
  });
  afterEach(() => expect(u.hostErrors).toEqual([]));

  it('answers POST /upload and populates cover and gallery with the FileRecord the document names; unreadable files stay ids', async () => {
    const uploaded = await request(u.app).post('/api/upload').set(...owner).attach('file', pngBytes(), 'dot.png').expect(201);
    expect(check.errorsOf('/upload', 'post', 201, 'application/json', uploaded.body)).toEqual([]);
    const file = uploaded.body as { id: string };
    const created = await request(u.app).post('/api/posts').set(...owner).send({ title: 'With a cover', cover: file.id, gallery: [file.id] }).expect(201);
    const path = `/posts/${created.body.id}`;

    const populated = await request(u.app).get(`/api${path}?depth=1`).set(...owner).expect(200);
    expect(populated.body.cover).toEqual(uploaded.body);
    expect(populated.body.gallery).toEqual([uploaded.body]);
    expect(check.errorsOf(path, 'get', 200, 'application/json', populated.body)).toEqual([]);
    const listed = await request(u.app).get('/api/posts?include=cover,gallery').set(...owner).expect(200);
    expect(listed.body.data[0].cover).toEqual(uploaded.body);
    expect(check.errorsOf('/posts', 'get', 200, 'application/json', listed.body)).toEqual([]);

    // Callers who may not read the file get its id, populated or not.
    for (const caller of [undefined, stranger]) {
      const req = request(u.app).get(`/api${path}?depth=1`);
      const res = await (caller ? req.set(...caller) : req).expect(200);
      expect({ cover: res.body.cover, gallery: res.body.gallery }).toEqual({ cover: file.id, gallery: [file.id] });
      expect(check.errorsOf(path, 'get', 200, 'application/json', res.body)).toEqual([]);
    }

    // The schema says exactly that: an object in an upload field is the whole file record, nothing else.
    expect(check.errorsOf(path, 'get', 200, 'application/json', { ...populated.body, cover: { id: file.id } })).not.toEqual([]);
    expect(check.errorsOf(path, 'get', 200, 'application/json', { ...populated.body, cover: { ...uploaded.body, uploadedBy: 'x' } })).not.toEqual([]);
    expect(check.componentErrors('FileRecord', uploaded.body)).toEqual([]);
  });
});
