// Writes a browser sends from another site on behalf of the host's session user (cross-site request
// forgery) are refused on every unsafe route of the router: collections (one, batch, bulk), globals,
// uploads, auth routes and custom endpoints. A Bearer token or an API key is never sent by a browser on
// its own, so those callers, anonymous ones and non-browser clients are not checked.
import request from 'supertest';
import { GOOD_PASSWORD, type AuthTestApp, createAuthTestApp } from '../auth/auth-test-app';
import { asUser } from '../helpers/create-test-app';

const ada = asUser({ id: '65a1b2c3d4e5f60718293a4b', role: 'admin' });
const EVIL = 'https://evil.example';
const TRUSTED = 'https://admin.example.com';
let t: AuthTestApp;
let postId: string;
let accessToken: string;

beforeAll(async () => {
  t = await createAuthTestApp({
    collections: [{ slug: 'notes', softDelete: true, fields: { title: { type: 'text' } }, access: { read: () => true } }],
    extra: {
      globals: [{ slug: 'site', fields: { title: { type: 'text' } } }],
      uploads: {},
      security: { trustedOrigins: [TRUSTED] },
      endpoints: [
        { path: '/ping', method: 'post', handler: () => ({ pong: true }) },
        (router) => router.put('/notes-import', (_req, res) => void res.json({ imported: 0 })),
      ],
    },
  });
  postId = (await request(t.app).post('/api/notes').set(...ada).send({ title: 'first' }).expect(201)).body.id;
  const registered = await request(t.app).post('/api/users/register').send({ email: 'bea@example.com', password: GOOD_PASSWORD }).expect(201);
  accessToken = registered.body.accessToken;
});
afterAll(() => t.close());
afterEach(() => expect(t.hostErrors).toEqual([]));

type Write = [name: string, send: (test: request.Test) => request.Test, method: 'post' | 'put' | 'patch' | 'delete', path: () => string];
const WRITES: Write[] = [
  ['a create', (r) => r.send({ title: 'x' }), 'post', () => '/api/notes'],
  ['a batch create', (r) => r.send({ data: [{ title: 'x' }] }), 'post', () => '/api/notes'],
  ['an update', (r) => r.send({ title: 'x' }), 'patch', () => `/api/notes/${postId}`],
  ['a delete', (r) => r, 'delete', () => `/api/notes/${postId}`],
  ['a restore', (r) => r, 'post', () => `/api/notes/${postId}/restore`],
  ['a bulk update', (r) => r.send({ title: 'x' }), 'patch', () => '/api/notes?where={}'],
  ['a bulk delete', (r) => r, 'delete', () => '/api/notes?where={}'],
  ['a global write', (r) => r.send({ title: 'x' }), 'patch', () => '/api/globals/site'],
  ['an upload', (r) => r.attach('file', Buffer.from('hello'), { filename: 'a.txt', contentType: 'text/plain' }), 'post', () => '/api/upload'],
  ['a file delete', (r) => r, 'delete', () => '/api/uploads/0123456789abcdef01234567.txt'],
  ['an auth route', (r) => r.send({ name: 'key', scopes: ['read'] }), 'post', () => '/api/users/api-keys'],
  ['an object endpoint', (r) => r.send({}), 'post', () => '/api/ping'],
  ['a function endpoint', (r) => r.send({}), 'put', () => '/api/notes-import'],
];

describe.each(WRITES)('%s', (_name, send, method, path) => {
  const as = (site: string | undefined, origin: string | undefined) => {
    let test = request(t.app)[method](path()).set(...ada);
    if (site) test = test.set('Sec-Fetch-Site', site);
    if (origin) test = test.set('Origin', origin);
    return send(test);
  };

  it('is a 403 cross_origin_request from another site with the host session', async () => {
    const res = await as('cross-site', EVIL);
    expect(res.status).toBe(403);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 403, code: 'cross_origin_request' });
    expect((await as(undefined, EVIL)).body.code).toBe('cross_origin_request');
    expect((await as('same-site', 'https://blog.example.com')).body.code).toBe('cross_origin_request');
  });

  it('is not refused as cross-origin from the same origin, a trusted origin, or without browser headers', async () => {
    for (const [site, origin] of [['same-origin', undefined], ['none', undefined], ['cross-site', TRUSTED], [undefined, TRUSTED], [undefined, undefined]] as const) {
      const res = await as(site, origin);
      expect({ site, origin, code: res.body.code }).not.toEqual({ site, origin, code: 'cross_origin_request' });
    }
  });
});

describe('callers the host session does not authenticate', () => {
  it('lets a Bearer token write from another site (a browser never sends it by itself)', async () => {
    const res = await request(t.app).post('/api/notes').set('Authorization', `Bearer ${accessToken}`).set('Origin', EVIL).set('Sec-Fetch-Site', 'cross-site').send({ title: 'token' });
    expect(res.status).toBe(201);
  });

  it('answers an anonymous cross-site write as the access rules do (401), not as forgery', async () => {
    const res = await request(t.app).post('/api/notes').set('Origin', EVIL).set('Sec-Fetch-Site', 'cross-site').send({ title: 'anon' });
    expect(res.status).toBe(401);
  });

  it('checks the Origin against the request’s own origin when Sec-Fetch-Site is missing', async () => {
    const own = await request(t.app).post('/api/notes').set(...ada).set('Host', 'cms.example.com').set('Origin', 'http://cms.example.com').send({ title: 'own' });
    expect(own.status).toBe(201);
    const otherPort = await request(t.app).post('/api/notes').set(...ada).set('Host', 'cms.example.com').set('Origin', 'http://cms.example.com:8080').send({ title: 'port' });
    expect(otherPort.body.code).toBe('cross_origin_request');
  });
});
