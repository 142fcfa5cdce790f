// A host with its own auth (a session cookie that sets req.user, no auth collection) describes it with
// `docs.securitySchemes`: the document then has the scheme, every operation that takes a caller lists it,
// Redocly's strict lint passes with nothing to report, and a 401 challenges with the host's scheme, never
// with a Bearer scheme the router does not accept.
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Connection } from 'mongoose';
import request from 'supertest';
import { type ContentConfig, type ContentRouter, contentRouter } from '../../lib';
import { SECRET, FAST_HASH } from '../auth/auth-test-app';
import { closeTestConnection, openTestConnection } from '../helpers/test-db';
import { createResponseValidator, lintWithRedocly, validateOpenApiDocument } from './openapi-validators';

const SESSIONS: Record<string, { id: string; role: string }> = { s3cret: { id: '0000000000000000000000a1', role: 'editor' } };
const COOKIE = { sessionCookie: { type: 'apiKey', in: 'cookie', name: 'connect.sid', description: 'The session cookie of the app’s login page.' } } as const;

type Host = { app: express.Express; api: ContentRouter; close(): Promise<void> };

/** A host whose own session middleware (a stand-in for express-session + passport) sets req.user from a cookie. */
async function createCookieHost(config: Omit<ContentConfig, 'db'>): Promise<Host> {
  const connection: Connection = await openTestConnection();
  let api: ContentRouter;
  try {
    api = contentRouter({ logger: { error: () => undefined, warn: () => undefined }, ...config, db: { connection } });
    await api.ready;
  } catch (error) {
    await closeTestConnection(connection);
    throw error;
  }
  const app = express();
  app.use((req: Request, _res: Response, next: NextFunction) => {
    const sid = /(?:^|;\s*)connect\.sid=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];
    if (sid && SESSIONS[sid]) (req as Request & { user?: unknown }).user = SESSIONS[sid];
    next();
  });
  app.use('/api', api);
  return {
    app,
    api,
    async close() {
      await api.close();
      await closeTestConnection(connection);
    },
  };
}

const COLLECTIONS: ContentConfig['collections'] = [{ slug: 'notes', fields: { text: { type: 'text', required: true } } }];

describe('a cookie-session host that declares its scheme', () => {
  let host: Host;
  let doc: Record<string, any>;
  beforeAll(async () => {
    host = await createCookieHost({ collections: COLLECTIONS, docs: { public: false, securitySchemes: COOKIE } });
    doc = (await request(host.app).get('/api/docs/openapi.json').set('Cookie', 'connect.sid=s3cret').expect(200)).body;
  });
  afterAll(() => host.close());

  it('has the scheme, and every operation lists it (anonymous too where access rules decide)', () => {
    expect(doc.components.securitySchemes).toEqual(COOKIE);
    expect(doc.paths['/notes'].get.security).toEqual([{}, { sessionCookie: [] }]);
    expect(doc.paths['/docs/openapi.json'].get.security).toEqual([{ sessionCookie: [] }]);
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(item as Record<string, { security?: unknown }>)) {
        expect({ path, method, security: Array.isArray(operation.security) }).toEqual({ path, method, security: true });
      }
    }
  });

  it("is valid OpenAPI 3.1 and passes Redocly's strict lint with nothing to report", () => {
    expect(validateOpenApiDocument(doc)).toEqual({ valid: true });
    expect(lintWithRedocly(doc, { strict: true }).map((p) => `${p.ruleId} at ${p.location[0]?.pointer}`)).toEqual([]);
  });

  it('a 401 challenges with the session scheme, as the document says, and no Bearer', async () => {
    const res = await request(host.app).post('/api/notes').send({ text: 'hi' });
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('sessionCookie');
    expect(doc.paths['/notes'].post.responses['401'].headers['WWW-Authenticate']).toMatchObject({ description: expect.stringContaining('sessionCookie') });
    expect(createResponseValidator(doc as never).errorsOf('/notes', 'post', 401, 'application/problem+json', res.body)).toEqual([]);
    const docs = await request(host.app).get('/api/docs/openapi.json');
    expect([docs.status, docs.headers['www-authenticate']]).toEqual([401, 'sessionCookie']);
    // The session works: the caller is the host's user.
    await request(host.app).post('/api/notes').set('Cookie', 'connect.sid=s3cret').send({ text: 'hi' }).expect(201);
  });
});

describe('the challenge follows the schemes in use', () => {
  it('a scheme may spell its challenge itself (x-www-authenticate), and a combined requirement is kept as given', async () => {
    const schemes = {
      session: { type: 'apiKey', in: 'cookie', name: 'sid', 'x-www-authenticate': 'Cookie realm="app", form-action="/login", cookie-name="sid"' },
      csrf: { type: 'apiKey', in: 'header', name: 'X-CSRF-Token' },
    } as const;
    const host = await createCookieHost({ collections: COLLECTIONS, docs: { securitySchemes: schemes, security: [{ session: [], csrf: [] }] } });
    try {
      const res = await request(host.app).post('/api/notes').send({ text: 'hi' });
      // One challenge per way to authenticate: the cookie's; the CSRF header that goes with it is no credential.
      expect(res.headers['www-authenticate']).toBe('Cookie realm="app", form-action="/login", cookie-name="sid"');
      const doc = (await request(host.app).get('/api/docs/openapi.json').expect(200)).body;
      expect(doc.paths['/notes'].post.security).toEqual([{}, { session: [], csrf: [] }]);
    } finally {
      await host.close();
    }
  });

  it('with an auth collection: Bearer first, then the host scheme; both in the document', async () => {
    const host = await createCookieHost({
      collections: [{ slug: 'users', auth: true, fields: {} }, ...COLLECTIONS!],
      auth: { jwtSecret: SECRET, passwordHash: FAST_HASH },
      email: { send: () => undefined },
      docs: { securitySchemes: { basic: { type: 'http', scheme: 'basic' } } },
    });
    try {
      const res = await request(host.app).post('/api/notes').send({ text: 'hi' });
      expect(res.headers['www-authenticate']).toBe('Bearer, Basic');
      const doc = (await request(host.app).get('/api/docs/openapi.json').expect(200)).body;
      expect(Object.keys(doc.components.securitySchemes)).toEqual(['bearerAuth', 'apiKeyBearer', 'apiKeyHeader', 'basic']);
      expect(doc.paths['/users/me'].get.security).toEqual([{ bearerAuth: [] }, { apiKeyBearer: [] }, { apiKeyHeader: [] }, { basic: [] }]);
    } finally {
      await host.close();
    }
  });

  it('without an auth collection or a declared scheme, a 401 names no scheme the router cannot honour', async () => {
    const host = await createCookieHost({ collections: COLLECTIONS });
    try {
      const res = await request(host.app).post('/api/notes').send({ text: 'hi' });
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBeUndefined();
      const doc = (await request(host.app).get('/api/docs/openapi.json').expect(200)).body;
      expect(doc.components.securitySchemes ?? {}).toEqual({});
      expect(doc.paths['/notes'].post.responses['401'].headers).toBeUndefined();
    } finally {
      await host.close();
    }
  });
});
