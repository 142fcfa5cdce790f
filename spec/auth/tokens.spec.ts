// Sessions over HTTP: refresh rotation with reuse detection, logout, logout-all, and every bad access
// token (tampered, alg none, wrong secret, expired, garbage, empty) answered 401 with WWW-Authenticate.
import express from 'express';
import jwt from 'jsonwebtoken';
import { Types } from 'mongoose';
import request from 'supertest';
import { hashToken } from '../../lib/util/random-token';
import { createTestApp } from '../helpers/create-test-app';
import { type AuthTestApp, PROBLEM, SECRET, bearer, createAuthTestApp, expectNoSecrets, registerAdmin, registerUser } from './auth-test-app';
import { createTestClock } from '../helpers/test-clock';

let t: AuthTestApp;
beforeAll(async () => {
  t = await createAuthTestApp();
});
afterAll(() => t.close());
afterEach(() => {
  expect(t.hostErrors).toEqual([]);
  expect(t.logs).toEqual([]);
});

const refreshTokens = () => t.connection.collection('users_refresh_tokens');
const tokenRow = (token: string) => refreshTokens().findOne({ tokenHash: hashToken(token) });

function expect401(res: request.Response, code?: string): void {
  expect(res.status).toBe(401);
  expect(res.headers['www-authenticate']).toBe('Bearer');
  expect(res.headers['content-type']).toMatch(PROBLEM);
  if (code) expect(res.body.code).toBe(code);
}

describe('POST /users/refresh', () => {
  it('rotates: a new pair, the old token marked used, the new one in the same family', async () => {
    const user = await registerUser(t);
    const res = await request(t.app).post('/api/users/refresh').send({ refreshToken: user.refreshToken });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ accessToken: expect.any(String), refreshToken: expect.any(String), expiresIn: 900 });
    expect(res.body.refreshToken).not.toBe(user.refreshToken);
    expectNoSecrets(res.body, [user.refreshToken]);

    const [old, next] = await Promise.all([tokenRow(user.refreshToken), tokenRow(res.body.refreshToken)]);
    expect(old?.usedAt).toBeInstanceOf(Date);
    expect(next).toMatchObject({ family: old?.family, usedAt: null, revokedAt: null });
    expect(String(next?.userId)).toBe(user.id);
    expect((jwt.decode(res.body.accessToken) as { sid: string }).sid).toBe(old?.family);

    const me = await request(t.app).get('/api/users/me').set(...bearer(res.body.accessToken));
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(user.id);
  });

  it('reuse of a spent token is a 401 and revokes the whole family', async () => {
    const user = await registerUser(t);
    const first = await request(t.app).post('/api/users/refresh').send({ refreshToken: user.refreshToken });
    expect(first.status).toBe(200);
    const reuse = await request(t.app).post('/api/users/refresh').send({ refreshToken: user.refreshToken });
    expect401(reuse, 'refresh_token_reused');
    // The token the legitimate client (or the thief) received is dead too.
    expect401(await request(t.app).post('/api/users/refresh').send({ refreshToken: first.body.refreshToken }), 'refresh_token_revoked');
    expect((await tokenRow(first.body.refreshToken))?.revokedAt).toBeInstanceOf(Date);
  });

  it('reuse revokes only that family: another session of the user keeps working', async () => {
    const user = await registerUser(t);
    const other = await request(t.app).post('/api/users/login').send({ email: user.email, password: user.password });
    await request(t.app).post('/api/users/refresh').send({ refreshToken: user.refreshToken }).expect(200);
    await request(t.app).post('/api/users/refresh').send({ refreshToken: user.refreshToken }).expect(401);
    expect((await request(t.app).post('/api/users/refresh').send({ refreshToken: other.body.refreshToken })).status).toBe(200);
  });

  it('of two concurrent refreshes with one token, never both succeed', async () => {
    const user = await registerUser(t);
    const results = await Promise.all([1, 2].map(() => request(t.app).post('/api/users/refresh').send({ refreshToken: user.refreshToken })));
    const statuses = results.map((r) => r.status).sort();
    // One spends the token. The other finds it spent: that is reuse, which ends the whole session, and
    // when it lands between the winner's spend and the winner's own check, the winner is refused too.
    // Either way the token never yields two sessions.
    expect([[200, 401], [401, 401]]).toContainEqual(statuses);
    const winner = results.find((r) => r.status === 200);
    if (winner) expect(winner.body.refreshToken).not.toBe(user.refreshToken);
    for (const res of results.filter((r) => r.status === 401)) expect(res.body.code).toMatch(/^refresh_token_(reused|revoked)$/);
  });

  it('401 for an unknown, an expired and a revoked token; 400 without one', async () => {
    expect401(await request(t.app).post('/api/users/refresh').send({ refreshToken: 'made-up-token' }), 'refresh_token_unknown');

    const user = await registerUser(t);
    await refreshTokens().updateOne({ tokenHash: hashToken(user.refreshToken) }, { $set: { expiresAt: new Date(Date.now() - 1000) } });
    expect401(await request(t.app).post('/api/users/refresh').send({ refreshToken: user.refreshToken }), 'refresh_token_expired');

    const other = await registerUser(t);
    await request(t.app).post('/api/users/logout').send({ refreshToken: other.refreshToken }).expect(200);
    expect401(await request(t.app).post('/api/users/refresh').send({ refreshToken: other.refreshToken }), 'refresh_token_revoked');

    const missing = await request(t.app).post('/api/users/refresh').send({});
    expect(missing.status).toBe(400);
    expect(missing.body.errors).toEqual([expect.objectContaining({ field: 'refreshToken', code: 'required' })]);
  });

  it('401 when the user is gone', async () => {
    const user = await registerUser(t);
    await t.connection.collection('users').deleteOne({ _id: new Types.ObjectId(user.id) });
    expect401(await request(t.app).post('/api/users/refresh').send({ refreshToken: user.refreshToken }));
  });
});

describe('POST /users/logout and /users/logout-all', () => {
  it('logout revokes the session of the refresh token: { message }', async () => {
    const user = await registerUser(t);
    const res = await request(t.app).post('/api/users/logout').send({ refreshToken: user.refreshToken });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: expect.any(String) });
    expect((await tokenRow(user.refreshToken))?.revokedAt).toBeInstanceOf(Date);
    expect401(await request(t.app).post('/api/users/logout').send({ refreshToken: user.refreshToken }));
    expect401(await request(t.app).post('/api/users/logout').send({ refreshToken: 'unknown' }));
  });

  it('logout-all revokes every session of the user: { message, revoked: n }', async () => {
    const user = await registerUser(t);
    const stranger = await registerUser(t);
    const second = await request(t.app).post('/api/users/login').send({ email: user.email, password: user.password });
    const third = await request(t.app).post('/api/users/login').send({ email: user.email, password: user.password });

    const res = await request(t.app).post('/api/users/logout-all').set(...bearer(second.body.accessToken));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: expect.any(String), revoked: 3 });
    for (const token of [user.refreshToken, second.body.refreshToken, third.body.refreshToken]) {
      expect401(await request(t.app).post('/api/users/refresh').send({ refreshToken: token }));
    }
    // Only the caller's sessions.
    expect((await request(t.app).post('/api/users/refresh').send({ refreshToken: stranger.refreshToken })).status).toBe(200);
    // Access tokens are stateless: they stay valid until they expire (15 minutes by default).
    expect((await request(t.app).get('/api/users/me').set(...bearer(second.body.accessToken))).status).toBe(200);
  });

  it('logout-all needs credentials', async () => {
    expect401(await request(t.app).post('/api/users/logout-all'));
  });
});

describe('bad access tokens: 401 with WWW-Authenticate: Bearer, even when the host also set req.user', () => {
  let user: Awaited<ReturnType<typeof registerUser>>;
  const now = () => Math.floor(Date.now() / 1000);
  const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  beforeAll(async () => {
    user = await registerUser(t);
  });

  const claims = () => ({ typ: 'access', col: 'users', sid: 'x', sub: user.id });
  const cases: Array<[string, () => string, string]> = [
    ['tampered payload', () => {
      const [header, , signature] = user.accessToken.split('.');
      return `${header}.${b64({ ...claims(), role: 'admin', iat: now(), exp: now() + 900 })}.${signature}`;
    }, 'invalid_token'],
    ['tampered signature', () => `${user.accessToken.slice(0, -4)}AAAA`, 'invalid_token'],
    ['alg none', () => `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ ...claims(), iat: now(), exp: now() + 900 })}.`, 'invalid_token'],
    ['wrong secret', () => jwt.sign(claims(), 'another-secret-another-secret-another', { algorithm: 'HS256', expiresIn: 900 }), 'invalid_token'],
    ['other algorithm (HS512, right secret)', () => jwt.sign(claims(), SECRET, { algorithm: 'HS512', expiresIn: 900 }), 'invalid_token'],
    ['expired', () => jwt.sign({ ...claims(), iat: now() - 2000, exp: now() - 1000 }, SECRET, { algorithm: 'HS256' }), 'token_expired'],
    ['not an access token (typ)', () => jwt.sign({ ...claims(), typ: 'refresh' }, SECRET, { algorithm: 'HS256', expiresIn: 900 }), 'invalid_token'],
    ['unknown collection', () => jwt.sign({ ...claims(), col: 'admins' }, SECRET, { algorithm: 'HS256', expiresIn: 900 }), 'invalid_token'],
    ['a user that does not exist', () => jwt.sign({ ...claims(), sub: new Types.ObjectId().toHexString() }, SECRET, { algorithm: 'HS256', expiresIn: 900 }), 'invalid_token'],
    ['sub not an id', () => jwt.sign({ ...claims(), sub: 'root' }, SECRET, { algorithm: 'HS256', expiresIn: 900 }), 'invalid_token'],
    ['garbage', () => 'garbage', 'invalid_token'],
    ['a refresh token', () => user.refreshToken, 'invalid_token'],
    // RFC 7515: extensions listed in `crit` must be understood, and the router understands none.
    ['crit naming a registered claim (right secret)', () => jwt.sign(claims(), SECRET, { algorithm: 'HS256', expiresIn: 900, header: { alg: 'HS256', crit: ['exp'] } }), 'invalid_token'],
    ['crit naming an unknown extension, present (right secret)', () => jwt.sign(claims(), SECRET, { algorithm: 'HS256', expiresIn: 900, header: { alg: 'HS256', crit: ['foo'], foo: 'bar' } as jwt.JwtHeader }), 'invalid_token'],
    ['an empty crit (right secret)', () => jwt.sign(claims(), SECRET, { algorithm: 'HS256', expiresIn: 900, header: { alg: 'HS256', crit: [] } }), 'invalid_token'],
  ];

  it.each(cases)('%s', async (_name, token, code) => {
    for (const path of ['/api/users/me', '/api/posts']) {
      const res = await request(t.app).get(path).set(...bearer(token()));
      expect401(res, code);
      const hosted = await request(t.app).get(path).set(...bearer(token())).set('X-Test-User', JSON.stringify({ id: user.id, role: 'admin' }));
      expect401(hosted, code);
      expectNoSecrets(res.body, [token(), user.accessToken]);
    }
  });

  it.each<[string, string]>([
    ['empty Bearer', 'Bearer '],
    ['Bearer without a token', 'Bearer'],
    ['Bearer with two parts', 'Bearer a b'],
  ])('%s', async (_name, header) => {
    const res = await request(t.app).get('/api/posts').set('Authorization', header);
    expect401(res, 'invalid_token');
  });

  it('a deleted user’s valid token is refused', async () => {
    const doomed = await registerUser(t);
    await t.connection.collection('users').deleteOne({ _id: new Types.ObjectId(doomed.id) });
    expect401(await request(t.app).get('/api/posts').set(...bearer(doomed.accessToken)), 'invalid_token');
  });
});

describe('an access token verified before (kept so repeated requests skip the signature check)', () => {
  it('still expires: a token that passed is refused with token_expired once its exp is reached', async () => {
    // The router's clock decides: moved past exp instead of waited for.
    const clock = createTestClock();
    const timed = await createAuthTestApp({ extra: { clock } });
    try {
      const user = await registerUser(timed);
      const exp = Math.floor(clock.now().getTime() / 1000) + 3;
      const shortLived = jwt.sign({ typ: 'access', col: 'users', sid: 'x', sub: user.id, exp }, SECRET, { algorithm: 'HS256' });
      const first = await request(timed.app).get('/api/users/me').set(...bearer(shortLived));
      expect(first.status).toBe(200);
      expect(first.body.id).toBe(user.id);
      clock.set(exp * 1000);
      expect401(await request(timed.app).get('/api/users/me').set(...bearer(shortLived)), 'token_expired');
    } finally {
      await timed.close();
    }
  });

  it('is matched on the whole token: a tampered signature of a token that passed is refused', async () => {
    const user = await registerUser(t);
    expect((await request(t.app).get('/api/posts').set(...bearer(user.accessToken))).status).toBe(200);
    const last = user.accessToken.at(-1) === 'A' ? 'B' : 'A';
    expect401(await request(t.app).get('/api/posts').set(...bearer(`${user.accessToken.slice(0, -1)}${last}`)), 'invalid_token');
    expect401(await request(t.app).get('/api/posts').set(...bearer(`${user.accessToken}.`)), 'invalid_token');
  });

  it('never holds a token with a crit header: refused every time, on every route', async () => {
    const user = await registerUser(t);
    const critical = jwt.sign({ typ: 'access', col: 'users', sid: 'x', sub: user.id }, SECRET, { algorithm: 'HS256', expiresIn: 900, header: { alg: 'HS256', crit: ['foo'], foo: 1 } as jwt.JwtHeader });
    for (let i = 0; i < 3; i++) {
      expect401(await request(t.app).get('/api/users/me').set(...bearer(critical)), 'invalid_token');
      expect401(await request(t.app).get('/api/posts').set(...bearer(critical)), 'invalid_token');
    }
    // The same claims without crit pass: only the header parameter makes the difference.
    const plain = jwt.sign({ typ: 'access', col: 'users', sid: 'x', sub: user.id }, SECRET, { algorithm: 'HS256', expiresIn: 900 });
    expect((await request(t.app).get('/api/users/me').set(...bearer(plain))).status).toBe(200);
  });

  it('still names a live user: once the user is deleted through the API, the same token is refused', async () => {
    const admin = await registerAdmin(t);
    const doomed = await registerUser(t);
    expect((await request(t.app).get('/api/users/me').set(...bearer(doomed.accessToken))).status).toBe(200);
    expect((await request(t.app).delete(`/api/users/${doomed.id}`).set(...bearer(admin.accessToken))).status).toBe(200);
    expect401(await request(t.app).get('/api/users/me').set(...bearer(doomed.accessToken)), 'invalid_token');
  });
});

describe('the host’s own req.user', () => {
  it('keeps working when the request carries no package credential', async () => {
    const host = ['X-Test-User', JSON.stringify({ id: 'host-1', role: 'editor' })] as const;
    expect((await request(t.app).get('/api/posts').set(...host)).status).toBe(200);
    expect((await request(t.app).post('/api/posts').set(...host).send({ title: 'By the host user' })).status).toBe(201);
  });

  it('keeps working beside another Authorization scheme (Basic belongs to the host)', async () => {
    const res = await request(t.app)
      .get('/api/posts')
      .set('Authorization', 'Basic dXNlcjpwYXNz')
      .set('X-Test-User', JSON.stringify({ id: 'host-2' }));
    expect(res.status).toBe(200);
  });
});

describe('two routers on one path, each with its own secret', () => {
  it('a caller one router resolved is not taken over by the next: its token is checked with the second router\'s secret', async () => {
    // Router a's custom endpoint hands GET /posts on to the host (next()), so the request reaches router b.
    const a = await createAuthTestApp({ collections: [], extra: { endpoints: [(router) => void router.get('/things', (_req, _res, next) => next())] } });
    const b = await createTestApp({
      auth: { jwtSecret: `${SECRET}-other`, passwordHash: { cost: 1024, blockSize: 8, parallelization: 1 } },
      collections: [
        { slug: 'users', auth: true, fields: {} },
        { slug: 'things', access: { read: ({ user }) => user !== null }, fields: { title: { type: 'text' } } },
      ],
    });
    try {
      const app = express();
      app.use('/api', a.api, b.api);
      const user = await registerUser(a);
      // Router b never issued this token: whatever router a made of it, b refuses it.
      expect401(await request(app).get('/api/things').set(...bearer(user.accessToken)), 'invalid_token');
      expect(a.hostErrors).toEqual([]);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
