// The docs routes as a host sees them: on and public by default, `docs: false` leaves the paths to the
// host, `public: false` wants a caller (the host's own req.user or a token), any mount path (one
// document per mount path), Express 4, and the dispatcher's HEAD/OPTIONS/405/404 rules.
import express4 from 'express4';
import express from 'express';
import request from 'supertest';
import swaggerUi from 'swagger-ui-express';
import { contentRouter } from '../../lib';
import { FAST_HASH, SECRET, registerUser } from '../auth/auth-test-app';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';
import { closeTestConnection, openTestConnection } from '../helpers/test-db';

const collections = [{ slug: 'items', fields: { name: { type: 'text' as const } } }];
const PROBLEM = /^application\/problem\+json/;

describe("beside the host's own swagger-ui-express docs", () => {
  // First in this file: the page is generated once per process, by the first router that serves it.
  it("leaves the host's shared init script alone", async () => {
    const host = express();
    // The host's docs are set up first (the shared serve middleware then holds the host's document)...
    host.use('/host-docs', swaggerUi.serve, swaggerUi.setup({ openapi: '3.0.0', info: { title: 'Host API', version: '1' }, paths: {} }));
    const before = await request(host).get('/host-docs/swagger-ui-init.js');
    expect(before.text).toContain('Host API');
    // ...then a router is created, whose page must not replace it.
    const t = await createTestApp({ collections });
    try {
      expect((await request(t.app).get('/api/docs/')).status).toBe(200);
      const after = await request(host).get('/host-docs/swagger-ui-init.js');
      expect(after.text).toBe(before.text);
      expect((await request(t.app).get('/api/docs/swagger-ui-init.js')).text).toContain('openapi.json');
    } finally {
      await t.close();
    }
  });
});

describe('default: on and public', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ collections });
  });
  afterAll(() => t.close());
  afterEach(() => expect(t.hostErrors).toEqual([]));

  it('serves the document and the UI without credentials', async () => {
    const doc = await request(t.app).get('/api/docs/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.body.paths['/items'].get.operationId).toBe('items.list');
    expect(doc.body.paths['/docs/openapi.json'].get.security).toBeUndefined();
    const page = await request(t.app).get('/api/docs/');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<div id="swagger-ui">');
  });

  it('serves the public document and the UI during a database outage, when the routes that need it answer 503', async () => {
    // The gate follows the connection's events: this one says the server is gone.
    t.connection.emit('disconnected');
    try {
      expect((await request(t.app).get('/api/items')).status).toBe(503);
      const doc = await request(t.app).get('/api/docs/openapi.json');
      expect(doc.status).toBe(200);
      expect(doc.body.openapi).toMatch(/^3\.1/);
      expect((await request(t.app).get('/api/docs/')).status).toBe(200);
      expect((await request(t.app).get('/api/docs/swagger-ui.css')).status).toBe(200);
    } finally {
      t.connection.emit('connected');
    }
  });

  it('HEAD and OPTIONS behave as on every route; other methods are a 405', async () => {
    const head = await request(t.app).head('/api/docs/openapi.json');
    expect(head.status).toBe(200);
    expect(head.text ?? '').toBe('');
    const options = await request(t.app).options('/api/docs/openapi.json');
    expect(options.status).toBe(204);
    expect(options.headers.allow).toBe('GET, HEAD');
    const post = await request(t.app).post('/api/docs').send({});
    expect(post.status).toBe(405);
    expect(post.headers['content-type']).toMatch(PROBLEM);
    expect(post.headers.allow).toBe('GET, HEAD');
  });

  it('an unknown asset or a deeper path is a 404 problem, not a file outside the asset list', async () => {
    for (const path of ['/api/docs/x', '/api/docs/index.html', '/api/docs/..%2Fpackage.json', '/api/docs/a/b', '/api/docs/swagger-ui.js.map']) {
      const res = await request(t.app).get(path);
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
      expect(res.headers['content-type']).toMatch(PROBLEM);
    }
  });

  it('serves the assets with their types', async () => {
    const css = await request(t.app).get('/api/docs/swagger-ui.css');
    expect(css.status).toBe(200);
    expect(css.headers['content-type']).toMatch(/^text\/css/);
    const js = await request(t.app).get('/api/docs/swagger-ui-bundle.js');
    expect(js.status).toBe(200);
    expect(js.headers['content-type']).toMatch(/javascript/);
    const init = await request(t.app).get('/api/docs/swagger-ui-init.js');
    expect(init.status).toBe(200);
    expect(init.headers['content-type']).toMatch(/javascript/);
    expect(init.text).toContain('openapi.json');
    // A trailing slash matches the same route (as everywhere in the router) and must not hang.
    const slash = await request(t.app).get('/api/docs/swagger-ui-init.js/');
    expect(slash.status).toBe(200);
    expect(slash.text).toBe(init.text);
  });

  it('redirects /docs to /docs/ relatively, keeping the query', async () => {
    const res = await request(t.app).get('/api/docs?x=1');
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('docs/?x=1');
  });
});

describe('at any mount path', () => {
  it('servers follows req.baseUrl, one document per mount path', async () => {
    const t = await createTestApp({ collections }, { prefix: '/cms/v1' });
    try {
      t.app.use('/other', t.api);
      const a = await request(t.app).get('/cms/v1/docs/openapi.json');
      const b = await request(t.app).get('/other/docs/openapi.json');
      const again = await request(t.app).get('/cms/v1/docs/openapi.json');
      expect(a.body.servers[0].url).toBe('/cms/v1');
      expect(b.body.servers[0].url).toBe('/other');
      expect(again.text).toBe(a.text);
    } finally {
      await t.close();
    }
  });

  it('works under Express 4', async () => {
    const connection = await openTestConnection();
    const api = contentRouter({ db: { connection }, collections, logger: { error: () => undefined, warn: () => undefined } });
    await api.ready;
    const app = express4();
    app.use('/api', api as unknown as express4.RequestHandler);
    try {
      const doc = await request(app).get('/api/docs/openapi.json');
      expect(doc.status).toBe(200);
      expect(doc.body.openapi).toBe('3.1.0');
      expect((await request(app).get('/api/docs/')).status).toBe(200);
      expect((await request(app).get('/api/docs/swagger-ui.css')).status).toBe(200);
    } finally {
      await api.close();
      await closeTestConnection(connection);
    }
  });
});

describe('docs: false', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ collections, docs: false });
    t.app.get('/api/docs', (_req, res) => {
      res.json({ host: 'docs' });
    });
  });
  afterAll(() => t.close());

  it('serves nothing: the paths go on to the host', async () => {
    expect((await request(t.app).get('/api/docs')).body).toEqual({ host: 'docs' });
    const json = await request(t.app).get('/api/docs/openapi.json');
    expect(json.status).toBe(404);
    expect(json.headers['content-type']).not.toMatch(PROBLEM);
    expect(t.api.routes.some((r) => r.path.startsWith('/docs'))).toBe(false);
  });
});

describe('docs: { public: false }', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      collections: [{ slug: 'users', auth: true, fields: {} }, ...collections],
      auth: { jwtSecret: SECRET, passwordHash: FAST_HASH },
      email: { send: () => undefined },
      docs: { public: false },
    });
  });
  afterAll(() => t.close());
  afterEach(() => expect(t.hostErrors).toEqual([]));

  it('answers 401 problem+json without a caller, on every docs path', async () => {
    for (const path of ['/api/docs', '/api/docs/', '/api/docs/openapi.json', '/api/docs/swagger-ui.css', '/api/docs/swagger-ui-init.js']) {
      const res = await request(t.app).get(path);
      expect({ path, status: res.status }).toEqual({ path, status: 401 });
      expect(res.headers['content-type']).toMatch(PROBLEM);
      expect(res.headers['www-authenticate']).toBe('Bearer');
    }
  });

  it("serves a caller of the host's own auth (req.user) and a bearer token", async () => {
    const host = await request(t.app).get('/api/docs/openapi.json').set(...asUser({ id: '000000000000000000000001' }));
    expect(host.status).toBe(200);
    const { accessToken } = await registerUser(t);
    const token = await request(t.app).get('/api/docs/').set('Authorization', `Bearer ${accessToken}`);
    expect(token.status).toBe(200);
    expect(host.body.paths['/docs/openapi.json'].get.security).toEqual([{ bearerAuth: [] }, { apiKeyBearer: [] }, { apiKeyHeader: [] }]);
    expect(host.body.paths['/docs/openapi.json'].get.responses['401']).toBeDefined();
  });
});
