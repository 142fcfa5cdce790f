// API-key scopes at custom endpoints, both forms: a key without the scope the request needs (read for
// GET/HEAD, write otherwise, or the endpoint's own `scope`) acts as an anonymous caller, as on collection
// routes: the handler's user, req.context, its local API and req.user all see nobody.
import type { Request } from 'express';
import request from 'supertest';
import { ForbiddenError, UnauthorizedError, type AuthUser, type EndpointObject } from '../../lib';
import { asUser } from '../helpers/create-test-app';
import { type AuthTestApp, type Registered, PROBLEM, bearer, createAuthTestApp, registerAdmin } from '../auth/auth-test-app';

type HostRequest = Request & { user?: { id?: string } };

/** What a handler saw: the caller it was handed, and the host's req.user. */
function seen(user: AuthUser | null | undefined, req: HostRequest): { user: string | null; reqUser: string | null } {
  return { user: user?.id ?? null, reqUser: req.user?.id ?? null };
}

/** The role check a host writes in a handler: nobody is 401, a user who is not an admin 403. */
function adminOnly(user: AuthUser | null | undefined): void {
  if (!user) throw new UnauthorizedError('Log in.');
  if (user.role !== 'admin') throw new ForbiddenError('Admins only.');
}

const objectEndpoints: EndpointObject[] = [
  { path: '/c/whoami', method: 'get', handler: ({ user, req }) => seen(user, req) },
  { path: '/c/whoami', method: 'post', handler: ({ user, req }) => seen(user, req) },
  { path: '/c/report', method: 'get', handler: ({ user }) => (adminOnly(user), { report: 'secret' }) },
  {
    path: '/c/posts',
    method: 'post',
    handler: async ({ req, res }) => {
      res.status(201);
      return req.context!.create('posts', { title: 'from form C' });
    },
  },
  { path: '/c/admin-task', method: 'get', scope: 'admin', handler: ({ user, req }) => seen(user, req) },
  { path: '/c/search', method: 'post', scope: 'read', handler: ({ user, req }) => seen(user, req) },
];

let t: AuthTestApp;
let admin: Registered;
/** The host's req.user a function route saw just before handing the request on with next(). */
let passedOnWith: unknown = 'unset';
/** The host's req.user once a function route's answer finished. */
let afterAnswer: unknown = 'unset';

beforeAll(async () => {
  t = await createAuthTestApp({
    extra: {
      endpoints: [
        (router) => {
          router.get('/b/whoami', (req, res) => res.json(seen(req.context!.user, req)));
          router.post('/b/whoami', (req, res) => res.json(seen(req.context!.user, req)));
          router.get('/b/report', (req, res) => {
            adminOnly(req.context!.user);
            res.json({ report: 'secret' });
          });
          router.post('/b/posts', async (req, res) => {
            res.status(201).json(await req.context!.create('posts', { title: 'from form B' }));
          });
          router.post('/b/answer', (req, res) => {
            res.on('finish', () => (afterAnswer = (req as HostRequest).user?.id));
            res.json(seen(req.context!.user, req));
          });
          router.post('/b/pass-on', (req, _res, next) => {
            passedOnWith = (req as HostRequest).user;
            next();
          });
        },
        ...objectEndpoints,
      ],
    },
  });
  // The host's own route behind the router: it must get its req.user back.
  t.app.post('/api/b/pass-on', (req, res) => res.json({ hostUser: (req as HostRequest).user?.id ?? null }));
  admin = await registerAdmin(t);
});
afterAll(() => t.close());
afterEach(() => {
  expect(t.hostErrors).toEqual([]);
  expect(t.logs).toEqual([]);
});

async function keyWith(scopes: string[]): Promise<[string, string]> {
  const res = await request(t.app).post('/api/users/api-keys').set(...bearer(admin.accessToken)).send({ name: scopes.join('+'), scopes });
  if (res.status !== 201) throw new Error(`key creation failed: ${res.status}`);
  return ['X-API-Key', res.body.apiKey.key];
}

const postCount = () => t.connection.collection('posts').countDocuments();

function expectInsufficientScope(res: request.Response, scope: string): void {
  expect(res.status).toBe(403);
  expect(res.headers['content-type']).toMatch(PROBLEM);
  expect(res.headers['www-authenticate']).toBeUndefined();
  expect(res.body).toMatchObject({ status: 403, code: 'insufficient_scope', detail: `This API key lacks the ${scope} scope.` });
}

describe.each([
  ['function endpoints (req.context)', 'b'],
  ['object endpoints (the user argument)', 'c'],
])('%s', (_name, form) => {
  it('a read-only key POSTs as an anonymous caller: no user, and a write through req.context is 403 insufficient_scope', async () => {
    const reader = await keyWith(['read']);
    const whoami = await request(t.app).post(`/api/${form}/whoami`).set(...reader);
    expect(whoami.status).toBe(200);
    expect(whoami.body).toEqual({ user: null, reqUser: null });

    const before = await postCount();
    const write = await request(t.app).post(`/api/${form}/posts`).set(...reader);
    expectInsufficientScope(write, 'write');
    expect(await postCount()).toBe(before);
  });

  it("a write-only key GETs as an anonymous caller: a handler's role check refuses it (403 insufficient_scope)", async () => {
    const writer = await keyWith(['write']);
    const whoami = await request(t.app).get(`/api/${form}/whoami`).set(...writer);
    expect(whoami.body).toEqual({ user: null, reqUser: null });
    const report = await request(t.app).get(`/api/${form}/report`).set(...writer);
    expectInsufficientScope(report, 'read');
    expect(report.text).not.toContain('secret');
    // HEAD is a GET: it needs the read scope too.
    expect((await request(t.app).head(`/api/${form}/report`).set(...writer)).status).toBe(403);
  });

  it('a key with the scope acts as its user: read for GET, write for POST', async () => {
    const reader = await keyWith(['read']);
    const report = await request(t.app).get(`/api/${form}/report`).set(...reader);
    expect(report.status).toBe(200);
    expect(report.body).toEqual({ report: 'secret' });
    expect((await request(t.app).get(`/api/${form}/whoami`).set(...reader)).body).toEqual({ user: admin.id, reqUser: null });

    const writer = await keyWith(['write']);
    const write = await request(t.app).post(`/api/${form}/posts`).set(...writer);
    expect(write.status).toBe(201);
    expect(await t.connection.collection('posts').countDocuments({ title: `from form ${form.toUpperCase()}` })).toBeGreaterThan(0);
  });

  it('an admin-scoped key does both', async () => {
    const all = await keyWith(['admin']);
    expect((await request(t.app).get(`/api/${form}/report`).set(...all)).status).toBe(200);
    expect((await request(t.app).post(`/api/${form}/whoami`).set(...all)).body).toEqual({ user: admin.id, reqUser: null });
    expect((await request(t.app).post(`/api/${form}/posts`).set(...all)).status).toBe(201);
  });

  it('no credential: anonymous as before, and a refusal stays a 401', async () => {
    expect((await request(t.app).post(`/api/${form}/whoami`)).body).toEqual({ user: null, reqUser: null });
    const report = await request(t.app).get(`/api/${form}/report`);
    expect(report.status).toBe(401);
    expect(report.headers['www-authenticate']).toBe('Bearer');
    const before = await postCount();
    expect((await request(t.app).post(`/api/${form}/posts`)).status).toBe(401);
    expect(await postCount()).toBe(before);
  });

  it('an access token (no scopes) is not restricted by scopes', async () => {
    const token = bearer(admin.accessToken);
    expect((await request(t.app).get(`/api/${form}/report`).set(...token)).status).toBe(200);
    expect((await request(t.app).post(`/api/${form}/whoami`).set(...token)).body).toEqual({ user: admin.id, reqUser: null });
    expect((await request(t.app).post(`/api/${form}/posts`).set(...token)).status).toBe(201);
  });

  it("hides the host's req.user too while the caller acts as anonymous (a host user with scopes, or a key beside a session)", async () => {
    const host = asUser({ id: admin.id, role: 'admin', scopes: ['read'] });
    expect((await request(t.app).post(`/api/${form}/whoami`).set(...host)).body).toEqual({ user: null, reqUser: null });
    expect((await request(t.app).get(`/api/${form}/whoami`).set(...host)).body).toEqual({ user: admin.id, reqUser: admin.id });

    const session = asUser({ id: admin.id, role: 'admin' });
    const writer = await keyWith(['write']);
    expect((await request(t.app).get(`/api/${form}/whoami`).set(...session).set(...writer)).body).toEqual({ user: null, reqUser: null });
    expect((await request(t.app).get(`/api/${form}/report`).set(...session).set(...writer)).status).toBe(403);
  });
});

describe("the host's req.user hidden from a function route", () => {
  it('is given back once the route has answered', async () => {
    const reader = await keyWith(['read']);
    const res = await request(t.app).post('/api/b/answer').set(...asUser({ id: admin.id })).set(...reader);
    expect(res.body).toEqual({ user: null, reqUser: null });
    expect(afterAnswer).toBe(admin.id);
  });

  it("is given back to the host's next handler when the route hands the request on with next()", async () => {
    const reader = await keyWith(['read']);
    const res = await request(t.app).post('/api/b/pass-on').set(...asUser({ id: admin.id })).set(...reader);
    expect(passedOnWith).toBeUndefined();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ hostUser: admin.id });
  });
});

describe('an object endpoint declaring its own scope', () => {
  it("scope: 'admin' needs the admin scope whatever the method: read+write keys act as anonymous", async () => {
    const readWrite = await keyWith(['read', 'write']);
    expect((await request(t.app).get('/api/c/admin-task').set(...readWrite)).body).toEqual({ user: null, reqUser: null });
    const all = await keyWith(['admin']);
    expect((await request(t.app).get('/api/c/admin-task').set(...all)).body).toEqual({ user: admin.id, reqUser: null });
    expect((await request(t.app).get('/api/c/admin-task').set(...bearer(admin.accessToken))).body).toEqual({ user: admin.id, reqUser: null });
  });

  it("scope: 'read' lets a read-only key POST (a search taking a body), and refuses a write-only one", async () => {
    expect((await request(t.app).post('/api/c/search').set(...(await keyWith(['read'])))).body).toEqual({ user: admin.id, reqUser: null });
    expect((await request(t.app).post('/api/c/search').set(...(await keyWith(['write'])))).body).toEqual({ user: null, reqUser: null });
  });

  it('is in the OpenAPI document: a 403 naming the scope each endpoint needs, declared or its method\'s', async () => {
    const doc = (await request(t.app).get('/api/docs/openapi.json')).body;
    expect(doc.paths['/c/admin-task'].get.responses['403'].description).toMatch(/`admin` scope/);
    expect(doc.paths['/c/search'].post.responses['403'].description).toMatch(/`read` scope/);
    expect(doc.paths['/c/whoami'].get.responses['403'].description).toMatch(/`read` scope/);
  });
});
