// `docs: { perCaller: true }`: each caller's document shows only the operations its access rules do not
// refuse outright and only the fields it may read (anonymous, an admin, an admin's read-only API key, a user
// whose field read rule denies a field); one document per distinct set of rights; the default stays one
// document for every caller; each document is valid OpenAPI 3.1 and lints clean.
import request from 'supertest';
import type { AuthUser } from '../../lib';
import type { AuthTestOptions } from '../auth/auth-test-app';
import { type AuthTestApp, type Registered, bearer, createAuthTestApp, registerAdmin, registerUser } from '../auth/auth-test-app';
import { lintWithRedocly, validateOpenApiDocument } from './openapi-validators';

type Operation = { operationId: string; responses: Record<string, { content?: Record<string, { schema: { $ref?: string } }> }> };
type Doc = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, { properties?: Record<string, unknown> }> } };

const isAdmin = ({ user }: { user: AuthUser | null }) => user?.role === 'admin';
const signedIn = ({ user }: { user: AuthUser | null }) => Boolean(user);

function config(perCaller: boolean): AuthTestOptions {
  return {
    collections: [
      {
        slug: 'articles',
        fields: {
          title: { type: 'text' as const },
          // Only admins read the editor's notes.
          notes: { type: 'text' as const, access: { read: isAdmin } },
          // Only admins feature an article; nobody changes a slug once set.
          featured: { type: 'boolean' as const, access: { create: isAdmin, update: isAdmin } },
          slug: { type: 'text' as const, access: { update: () => false } },
        },
        access: { read: () => true, create: signedIn, update: signedIn, delete: isAdmin },
      },
      // Signed-in users edit working copies; only admins publish, schedule, make preview links or read the history.
      {
        slug: 'pages',
        versions: { drafts: true },
        fields: { heading: { type: 'text' as const } },
        access: { read: () => true, create: signedIn, update: signedIn, delete: isAdmin, publish: isAdmin, readDrafts: isAdmin, readVersions: isAdmin },
      },
      // Admins only: absent from everyone else's document.
      { slug: 'ledgers', fields: { amount: { type: 'number' as const } }, access: { read: isAdmin, create: isAdmin, update: isAdmin, delete: isAdmin } },
    ],
    extra: {
      globals: [{ slug: 'site', fields: { name: { type: 'text' as const } }, access: { read: () => true, update: isAdmin } }],
      docs: { perCaller },
      audit: {},
      uploads: { allowedMimeTypes: ['image/*'] },
    },
  };
}

/** The properties of the record schema a path's GET answers. */
function recordProperties(doc: Doc, path: string): string[] {
  const ref = doc.paths[path].get.responses[200].content?.['application/json'].schema.$ref ?? '';
  return Object.keys(doc.components.schemas[ref.replace('#/components/schemas/', '')].properties ?? {});
}

async function documentOf(t: AuthTestApp, credential?: [string, string]): Promise<request.Response> {
  const req = request(t.app).get('/api/docs/openapi.json');
  const res = await (credential ? req.set(...credential) : req);
  expect(res.status).toBe(200);
  return res;
}

describe('docs: { perCaller: true }', () => {
  let t: AuthTestApp;
  let admin: Registered;
  let user: Registered;
  let readKey: string;
  beforeAll(async () => {
    t = await createAuthTestApp(config(true));
    admin = await registerAdmin(t);
    user = await registerUser(t);
    const key = await request(t.app).post('/api/users/api-keys').set(...bearer(admin.accessToken)).send({ name: 'reader', scopes: ['read'] });
    readKey = key.body.apiKey.key;
  });
  afterAll(() => t.close());
  afterEach(() => expect(t.hostErrors).toEqual([]));

  it('shows an anonymous caller what it may read and nothing it may not do or read', async () => {
    const doc = (await documentOf(t)).body as Doc;
    expect(Object.keys(doc.paths['/articles'])).toEqual(['get']);
    expect(Object.keys(doc.paths['/articles/{id}'])).toEqual(['get']);
    expect(doc.paths['/articles/count']).toBeDefined();
    expect(recordProperties(doc, '/articles/{id}')).toContain('title');
    expect(recordProperties(doc, '/articles/{id}')).not.toContain('notes');
    // A collection it may do nothing with is not there at all, its schemas neither.
    expect(Object.keys(doc.paths).filter((path) => path.startsWith('/ledgers'))).toEqual([]);
    expect(JSON.stringify(doc.components.schemas)).not.toContain('amount');
    expect(Object.keys(doc.paths['/globals/site'])).toEqual(['get']);
    // Routes that need a signed-in caller are refused outright to an anonymous one; signing in stays.
    expect(doc.paths['/users/me']).toBeUndefined();
    expect(doc.paths['/users/login'].post).toBeDefined();
  });

  it('shows an admin every operation and every field', async () => {
    const doc = (await documentOf(t, bearer(admin.accessToken))).body as Doc;
    expect(Object.keys(doc.paths['/articles']).sort()).toEqual(['delete', 'get', 'patch', 'post']);
    expect(Object.keys(doc.paths['/articles/{id}']).sort()).toEqual(['delete', 'get', 'patch']);
    expect(recordProperties(doc, '/articles/{id}')).toContain('notes');
    expect(doc.paths['/ledgers'].post).toBeDefined();
    expect(Object.keys(doc.paths['/globals/site']).sort()).toEqual(['get', 'patch', 'post']);
    expect(doc.paths['/users/me'].get).toBeDefined();
  });

  it("shows an admin's read-only API key the admin's fields but no write", async () => {
    const doc = (await documentOf(t, ['X-API-Key', readKey])).body as Doc;
    expect(Object.keys(doc.paths['/articles'])).toEqual(['get']);
    expect(Object.keys(doc.paths['/ledgers'])).toEqual(['get']);
    expect(recordProperties(doc, '/articles/{id}')).toContain('notes');
    expect(Object.keys(doc.paths['/globals/site'])).toEqual(['get']);
  });

  it('shows a user the writes its rules allow, without the field its read rule denies', async () => {
    const doc = (await documentOf(t, bearer(user.accessToken))).body as Doc;
    expect(Object.keys(doc.paths['/articles']).sort()).toEqual(['get', 'patch', 'post']);
    expect(Object.keys(doc.paths['/articles/{id}']).sort()).toEqual(['get', 'patch']);
    expect(recordProperties(doc, '/articles/{id}')).not.toContain('notes');
    expect(doc.paths['/ledgers']).toBeUndefined();
  });

  it('leaves out of its write bodies the fields it may not set (field write rules, fields kept for admins)', async () => {
    const props = (doc: Doc, name: string) => Object.keys(doc.components.schemas[name].properties ?? {});
    const byUser = (await documentOf(t, bearer(user.accessToken))).body as Doc;
    expect(props(byUser, 'ArticlesCreate')).toEqual(['title', 'slug']);
    expect(props(byUser, 'ArticlesUpdate')).toEqual(['title']);
    // Its own account: it may change its profile, not its role, e-mail or password (those have their own routes).
    expect(props(byUser, 'UsersUpdate')).not.toContain('role');
    expect(props(byUser, 'UsersUpdate')).not.toContain('password');
    const byAdmin = (await documentOf(t, bearer(admin.accessToken))).body as Doc;
    expect(props(byAdmin, 'ArticlesCreate')).toEqual(['title', 'notes', 'featured', 'slug']);
    expect(props(byAdmin, 'ArticlesUpdate')).toEqual(['title', 'notes', 'featured']);
  });

  it('shows the workflow routes by their own rules: publish, schedule, preview links and history', async () => {
    const workflow = (doc: Doc) =>
      Object.entries(doc.paths)
        .filter(([path]) => path.startsWith('/pages/{id}/'))
        .flatMap(([path, item]) => Object.keys(item).map((method) => `${method} ${path}`))
        .sort();
    const byUser = (await documentOf(t, bearer(user.accessToken))).body as Doc;
    // A working copy is read with readDrafts, or by anyone holding a preview link: its GET stays. Saving or
    // discarding it reads it too, so without readDrafts the user may not (REST answers those a 403).
    expect(workflow(byUser)).toEqual(['get /pages/{id}/draft']);
    const byAdmin = (await documentOf(t, bearer(admin.accessToken))).body as Doc;
    expect(workflow(byAdmin)).toEqual(
      expect.arrayContaining([
        'post /pages/{id}/publish',
        'post /pages/{id}/unpublish',
        'post /pages/{id}/schedule',
        'post /pages/{id}/preview',
        'get /pages/{id}/versions',
        'post /pages/{id}/versions/{version}/restore',
      ]),
    );
  });

  it("leaves out the routes a caller is refused outright by rules beside the collections' (API keys, audit, files)", async () => {
    const ops = (doc: Doc) => Object.values(doc.paths).flatMap((item) => Object.values(item).map((op) => op.operationId));
    const keyRoutes = ['users.createApiKey', 'users.listApiKeys', 'users.deleteApiKey', 'users.changePassword', 'users.logoutAll'];
    const audit = ['audit.list', 'audit.export', 'articles.audit'];
    const byAdmin = ops((await documentOf(t, bearer(admin.accessToken))).body as Doc);
    expect(byAdmin).toEqual(expect.arrayContaining([...keyRoutes, ...audit, 'uploads.create', 'uploads.delete', 'pages.createPreview', 'pages.revokePreviews']));
    // An admin's read-only key: no key management, no audit log (it needs the admin scope), no upload, no preview link.
    const byReadKey = ops((await documentOf(t, ['X-API-Key', readKey])).body as Doc);
    for (const id of [...keyRoutes, ...audit, 'uploads.create', 'uploads.delete', 'pages.createPreview', 'pages.revokePreviews']) expect(byReadKey).not.toContain(id);
    expect(byReadKey).toContain('uploads.get');
    // A user: its keys and password, no audit log (admins only), uploads (any signed-in caller by default).
    const byUser = ops((await documentOf(t, bearer(user.accessToken))).body as Doc);
    expect(byUser).toEqual(expect.arrayContaining([...keyRoutes, 'uploads.create', 'uploads.delete']));
    for (const id of audit) expect(byUser).not.toContain(id);
    // Anonymous: files are read only.
    const byAnonymous = ops((await documentOf(t)).body as Doc);
    expect(byAnonymous).toContain('uploads.get');
    expect(byAnonymous).not.toContain('uploads.create');
    expect(byAnonymous).not.toContain('uploads.delete');
  });

  it('builds one document per distinct set of rights: callers with the same rights get the same one', async () => {
    const other = await registerUser(t);
    const [a, b, c] = await Promise.all([documentOf(t, bearer(user.accessToken)), documentOf(t, bearer(other.accessToken)), documentOf(t)]);
    expect(a.headers.etag).toBe(b.headers.etag);
    expect(a.headers.etag).not.toBe(c.headers.etag);
    // The answer depends on the credential: no shared cache may hand one caller's document to another.
    expect(a.headers.vary).toMatch(/Authorization/i);
    expect(a.headers['cache-control']).toMatch(/private/);
  });

  it('answers a bad credential 401, as every route does', async () => {
    const res = await request(t.app).get('/api/docs/openapi.json').set('Authorization', 'Bearer not-a-token');
    expect(res.status).toBe(401);
  });

  it("documents are valid OpenAPI 3.1 and lint clean: the anonymous caller's, the admin's and a user's", async () => {
    for (const credential of [undefined, bearer(admin.accessToken), bearer(user.accessToken)]) {
      const doc: unknown = (await documentOf(t, credential)).body;
      expect(validateOpenApiDocument(doc)).toEqual({ valid: true });
      // Only the UI page's warning every public document without a rate limit has (document-matches-answers.spec.ts).
      const problems = lintWithRedocly(doc, { strict: true }).map((p) => `${p.ruleId} at ${p.location[0]?.pointer}`);
      expect(problems).toEqual(['operation-4xx-response at #/paths/~1docs/get/responses']);
    }
  });
});

describe('docs.perCaller off (the default)', () => {
  let t: AuthTestApp;
  beforeAll(async () => {
    t = await createAuthTestApp(config(false));
  });
  afterAll(() => t.close());

  it('serves every caller the same document of the whole API', async () => {
    const admin = await registerAdmin(t);
    const [anonymous, signedIn] = await Promise.all([documentOf(t), documentOf(t, bearer(admin.accessToken))]);
    expect(anonymous.text).toBe(signedIn.text);
    expect((anonymous.body as Doc).paths['/ledgers'].post).toBeDefined();
    // Every writable field, whatever a caller's field rules: the whole API's document.
    expect(Object.keys((anonymous.body as Doc).components.schemas.ArticlesUpdate.properties ?? {})).toEqual(['title', 'notes', 'featured', 'slug']);
  });
});
