// Rate limiting over HTTP: 429 problem+json with Retry-After and IETF RateLimit headers, the stricter
// limit of the credential routes (per client and account, bounded per client), the shared Mongo store
// across router instances, a failing store that lets requests through with one warning, keyBy, and
// host routes at the same prefix that are never counted.
import express from 'express';
import express4 from 'express4';
import type { Connection } from 'mongoose';
import request from 'supertest';
import type { RateLimitOptions } from '../../lib';
import { RATE_LIMIT_COLLECTION } from '../../lib/rate-limit/mongo-store';
import { FAST_HASH, PROBLEM, SECRET, registerUser, uniqueEmail } from '../auth/auth-test-app';
import { type TestApp, createTestApp } from '../helpers/create-test-app';
import { closeTestConnection, openTestConnection, uniqueDbName } from '../helpers/test-db';

interface Logged {
  warn: unknown[][];
  error: unknown[][];
  info: unknown[][];
}

interface LimitedApp extends TestApp {
  logged: Logged;
}

const apps: TestApp[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) {
    expect(app.hostErrors).toEqual([]);
    await app.close();
  }
});

/** A router with `users` (auth) and `posts` (open), limited by `rateLimit`; every log line captured by level. */
async function limitedApp(rateLimit: RateLimitOptions, options: { connection?: Connection } = {}): Promise<LimitedApp> {
  const logged: Logged = { warn: [], error: [], info: [] };
  const app = await createTestApp(
    {
      logger: { warn: (...a) => void logged.warn.push(a), error: (...a) => void logged.error.push(a), info: (...a) => void logged.info.push(a) },
      auth: { jwtSecret: SECRET, passwordHash: FAST_HASH },
      security: { rateLimit },
      // `sortable` declared, so the only log lines are the rate limiter's (no unindexed-sort warning).
      collections: [
        { slug: 'users', auth: true, sortable: [], fields: {} },
        { slug: 'posts', sortable: [], access: { read: () => true, create: () => true }, fields: { title: { type: 'text' } } },
      ],
    },
    options,
  );
  apps.push(app);
  return Object.assign(app, { logged });
}

const list = (t: TestApp) => request(t.app).get('/api/posts');
const login = (t: TestApp, email: string, password = 'Wrong-passw0rd') => request(t.app).post('/api/users/login').send({ email, password });

function expectLimited(res: request.Response, policy: string): void {
  expect(res.status).toBe(429);
  expect(res.headers['content-type']).toMatch(PROBLEM);
  expect(res.body).toMatchObject({ status: 429, code: 'rate_limited', title: 'Too many requests', type: 'urn:content-router:problem:rate_limited' });
  expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  expect(res.headers.ratelimit).toContain(`"${policy}"; r=0;`);
  expect(res.headers['ratelimit-policy']).toContain(`"${policy}";`);
}

describe('the general limit', () => {
  it('answers 429 problem+json with Retry-After and RateLimit headers after max requests', async () => {
    const t = await limitedApp({ max: 3, windowMs: 60_000 });
    for (let remaining = 2; remaining >= 0; remaining--) {
      const res = await list(t);
      expect(res.status).toBe(200);
      expect(res.headers.ratelimit).toMatch(new RegExp(`^"api"; r=${remaining}; t=(60|59)$`));
      expect(res.headers['ratelimit-policy']).toMatch(/^"api"; q=3; w=60; pk=:[A-Za-z0-9+/=]+:$/);
      expect(res.headers['retry-after']).toBeUndefined();
    }
    const limited = await list(t);
    expectLimited(limited, 'api');
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
    // Every route the router serves counts: a write is refused too, and nothing is written.
    const create = await request(t.app).post('/api/posts').send({ title: 'x' });
    expectLimited(create, 'api');
    expect(await t.connection.collection('posts').countDocuments()).toBe(0);
    expect(t.logged).toEqual({ warn: [], error: [], info: [] });
  });

  it('never counts paths the router does not serve (host routes at the same prefix)', async () => {
    const t = await limitedApp({ max: 2 });
    t.app.get('/api/health', (_req, res) => void res.json({ ok: true }));
    for (let i = 0; i < 5; i++) {
      const res = await request(t.app).get('/api/health');
      expect(res.status).toBe(200);
      expect(res.headers.ratelimit).toBeUndefined();
    }
    expect((await list(t)).headers.ratelimit).toMatch(/^"api"; r=1;/);
  });

  it('keys clients by the IP as Express sees it: behind a proxy only with trust proxy (and says so once otherwise)', async () => {
    const t = await limitedApp({ max: 1 });
    const from = (ip: string) => list(t).set('X-Forwarded-For', ip);
    expect((await from('203.0.113.1')).status).toBe(200);
    // Without trust proxy every forwarded client is the proxy: one count.
    expectLimited(await from('203.0.113.2'), 'api');
    expect(t.logged.warn).toHaveLength(1);
    expect(String(t.logged.warn[0][1])).toContain('trust proxy');

    const proxied = await limitedApp({ max: 1 });
    proxied.app.set('trust proxy', 'loopback');
    const via = (ip: string) => list(proxied).set('X-Forwarded-For', ip);
    expect((await via('203.0.113.1')).status).toBe(200);
    expect((await via('203.0.113.2')).status).toBe(200);
    expectLimited(await via('203.0.113.1'), 'api');
    expect(proxied.logged).toEqual({ warn: [], error: [], info: [] });
  });

  it('keys clients by keyBy when given', async () => {
    const t = await limitedApp({ max: 2, keyBy: (req) => String(req.headers['x-tenant'] ?? 'none') });
    const as = (tenant: string) => list(t).set('X-Tenant', tenant);
    expect((await as('a')).status).toBe(200);
    expect((await as('a')).status).toBe(200);
    expectLimited(await as('a'), 'api');
    expect((await as('b')).status).toBe(200);
    expect((await as('b')).headers.ratelimit).toMatch(/^"api"; r=0;/);
  });

  it('answers a logged 500, not a shared bucket, when keyBy returns no key', async () => {
    const t = await limitedApp({ max: 2, keyBy: () => '' });
    const res = await list(t);
    expect(res.status).toBe(500);
    expect(res.headers['content-type']).toMatch(PROBLEM);
    expect(String(t.logged.error[0]?.[1])).toContain('keyBy must return a non-empty string');
  });
});

describe('the credential routes', () => {
  it('trip the auth limit before the general one on login; another account from the same client counts separately up to the per-client bound', async () => {
    const t = await limitedApp({ max: 100, auth: { max: 3, maxPerClient: 5 } });
    const a = uniqueEmail('a');
    for (let i = 0; i < 3; i++) {
      const res = await login(t, i === 1 ? `  ${a.toUpperCase()} ` : a);
      expect(res.status).toBe(401);
      // One entry per limit that counted the request, in the order they apply.
      expect(res.headers.ratelimit).toMatch(new RegExp(`^"api"; r=${99 - i}; t=\\d+, "auth"; r=${2 - i}; t=\\d+, "auth-client"; r=${4 - i}; t=\\d+$`));
      expect(res.headers['ratelimit-policy']).toMatch(/^"api"; q=100; w=60; pk=:[^:]+:, "auth"; q=3; w=900; pk=:[^:]+:, "auth-client"; q=5; w=900; pk=:[^:]+:$/);
    }
    // The same address however it is spelt: the fourth attempt never reaches the password check.
    expectLimited(await login(t, a.toUpperCase()), 'auth');
    // The general limit is nowhere near: the rest of the API still answers.
    const posts = await list(t);
    expect(posts.status).toBe(200);
    expect(posts.headers.ratelimit).toMatch(/^"api"; r=95;/);

    // Another account from the same client is counted on its own, up to the bound of 5 per client.
    const b = uniqueEmail('b');
    expect((await login(t, b)).status).toBe(401);
    expect((await login(t, b)).status).toBe(401);
    expectLimited(await login(t, uniqueEmail('c')), 'auth-client');
  });

  it('limit register, forgot-password and reset-password too (one count per client and account across them), not the other auth routes', async () => {
    const t = await limitedApp({ max: 100, auth: { max: 1 } });
    const user = await registerUser(t);
    expectLimited(await request(t.app).post('/api/users/register').send({ email: user.email, password: 'Corr3ct-Horse!' }), 'auth');
    expectLimited(await request(t.app).post('/api/users/forgot-password').send({ email: user.email }), 'auth');
    const other = uniqueEmail('other');
    expect((await request(t.app).post('/api/users/forgot-password').send({ email: other })).status).toBe(200);
    expectLimited(await request(t.app).post('/api/users/forgot-password').send({ email: other }), 'auth');
    // No address in the body: the client's own count, whatever the token.
    expect((await request(t.app).post('/api/users/reset-password').send({ token: 'nope', password: 'Corr3ct-Horse!' })).status).toBe(400);
    expectLimited(await request(t.app).post('/api/users/reset-password').send({ token: 'other', password: 'Corr3ct-Horse!' }), 'auth');
    const refresh = await request(t.app).post('/api/users/refresh').send({ refreshToken: user.refreshToken });
    expect(refresh.status).toBe(200);
    expect(refresh.headers.ratelimit).toMatch(/^"api"; r=\d+; t=\d+$/);
  });

  it('still parse and check the body after the limit (malformed JSON is a 400, a non-JSON body a 415)', async () => {
    const t = await limitedApp({ auth: { max: 5 } });
    const malformed = await request(t.app).post('/api/users/login').set('Content-Type', 'application/json').send('{"email":');
    expect(malformed.status).toBe(400);
    expect(malformed.body.code).toBe('malformed_body');
    const text = await request(t.app).post('/api/users/login').set('Content-Type', 'text/plain').send('email=x');
    expect(text.status).toBe(415);
    const user = await registerUser(t);
    const ok = await login(t, user.email, user.password);
    expect(ok.status).toBe(200);
    expect(ok.body.accessToken).toEqual(expect.any(String));
  });
});

describe('the mongo store', () => {
  it('is shared by two router instances on one database (two connections, two apps)', async () => {
    const dbName = uniqueDbName();
    const connections = [await openTestConnection(dbName), await openTestConnection(dbName)];
    try {
      const [one, two] = [await limitedApp({ max: 3, store: 'mongo' }, { connection: connections[0] }), await limitedApp({ max: 3, store: 'mongo' }, { connection: connections[1] })];
      expect((await list(one)).status).toBe(200);
      expect((await list(two)).status).toBe(200);
      const third = await list(one);
      expect(third.status).toBe(200);
      expect(third.headers.ratelimit).toMatch(/^"api"; r=0;/);
      expectLimited(await list(two), 'api');
      expectLimited(await list(one), 'api');
      // Counted in the router's own database, keyed by limiter and client.
      const rows = await connections[0].collection(RATE_LIMIT_COLLECTION).find().toArray();
      expect(rows).toEqual([expect.objectContaining({ _id: expect.stringMatching(/^api:/), hits: 5, resetAt: expect.any(Date) })]);
      expect(one.logged).toEqual({ warn: [], error: [], info: [] });
    } finally {
      for (const app of apps.splice(0)) await app.close();
      await connections[1].close();
      await closeTestConnection(connections[0]);
    }
  });

  it('counts a parallel burst exactly, across two instances', async () => {
    const dbName = uniqueDbName();
    const connections = [await openTestConnection(dbName), await openTestConnection(dbName)];
    try {
      const both = [await limitedApp({ max: 5, store: 'mongo' }, { connection: connections[0] }), await limitedApp({ max: 5, store: 'mongo' }, { connection: connections[1] })];
      const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => list(both[i % 2])));
      // Every status at once, so a failure shows what the odd answer was (and its body).
      expect(answers.map((res) => res.status).sort()).toEqual([...Array(5).fill(200), ...Array(7).fill(429)]);
      expect(answers.filter((res) => res.status !== 200 && res.status !== 429).map((res) => res.text)).toEqual([]);
    } finally {
      for (const app of apps.splice(0)) await app.close();
      await connections[1].close();
      await closeTestConnection(connections[0]);
    }
  });

  it('opens a new window once the old one has ended', async () => {
    const t = await limitedApp({ max: 1, store: 'mongo' });
    expect((await list(t)).status).toBe(200);
    expectLimited(await list(t), 'api');
    await t.connection.collection(RATE_LIMIT_COLLECTION).updateMany({}, { $set: { resetAt: new Date(Date.now() - 1000) } });
    const res = await list(t);
    expect(res.status).toBe(200);
    expect(res.headers.ratelimit).toMatch(/^"api"; r=0;/);
  });

  it('lets requests through with exactly one warning while the store fails, and limits again once it answers', async () => {
    const t = await limitedApp({ max: 2, store: 'mongo', auth: { max: 1 } });
    const rows = t.connection.collection(RATE_LIMIT_COLLECTION);
    const spy = jest.spyOn(rows, 'findOneAndUpdate').mockRejectedValue(new Error('store down'));
    try {
      for (let i = 0; i < 4; i++) {
        const res = await list(t);
        expect(res.status).toBe(200);
        expect(res.headers.ratelimit).toBeUndefined();
      }
      // Three limiters on a credential route, still one warning for the outage.
      expect((await login(t, uniqueEmail())).status).toBe(401);
      expect((await login(t, uniqueEmail())).status).toBe(401);
    } finally {
      spy.mockRestore();
    }
    expect(t.logged.warn).toHaveLength(1);
    expect(String(t.logged.warn[0][0])).toContain('rate-limit store failed');
    expect(t.logged.error).toEqual([]);
    expect((await list(t)).status).toBe(200);
    expectLimited((await list(t), await list(t)), 'api');
    expect(t.logged.info).toHaveLength(1);
  });
});

describe('lifecycle', () => {
  it('a router without security.rateLimit sends no RateLimit headers', async () => {
    const t = await createTestApp({ collections: [{ slug: 'posts', access: { read: () => true }, fields: {} }] });
    apps.push(t);
    const res = await list(t);
    expect(res.status).toBe(200);
    expect(res.headers.ratelimit).toBeUndefined();
  });

  it('works the same in an Express 4 host', async () => {
    const t = await limitedApp({ max: 2, auth: { max: 1 } });
    const app = express4();
    app.use('/api', t.api as unknown as express4.RequestHandler);
    expect((await request(app).post('/api/users/login').send({ email: 'a@example.com', password: 'x' })).status).toBe(401);
    expectLimited(await request(app).post('/api/users/login').send({ email: 'A@example.com', password: 'x' }), 'auth');
    expectLimited(await request(app).get('/api/posts'), 'api');
  });

  it('one router mounted in two host apps keeps one count', async () => {
    const t = await limitedApp({ max: 1 });
    const other = express();
    other.use('/api', t.api);
    expect((await list(t)).status).toBe(200);
    expectLimited(await request(other).get('/api/posts'), 'api');
  });
});
