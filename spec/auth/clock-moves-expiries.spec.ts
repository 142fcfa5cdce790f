// `config.clock`: every expiry of auth is decided by the router's clock, so moving the clock expires access
// tokens (one already verified too), refresh tokens, reset and verification tokens, and ends a lockout, with
// no wait; tokens and records carry the clock's time. A clock that is not `{ now(): Date }` is a ConfigError.
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { ConfigError, type ContentConfig, contentRouter } from '../../lib';
import { createTestClock } from '../helpers/test-clock';
import { type AuthTestApp, bearer, createAuthTestApp, registerUser, tokenFromMail } from './auth-test-app';

const MINUTE = 60_000;
const clock = createTestClock();
let t: AuthTestApp;
beforeAll(async () => {
  t = await createAuthTestApp({ usersAuth: { maxLoginAttempts: 3, lockTime: '15m' }, extra: { clock } });
});
afterAll(() => t.close());

const login = (email: string, password: string) => request(t.app).post('/api/users/login').send({ email, password });

describe('the clock option', () => {
  const db = { uri: 'mongodb://127.0.0.1:1/never-used' };
  it.each<[string, unknown, string]>([
    ['not an object', 'system', 'clock: must be an object { now(): Date }'],
    ['without now()', {}, 'clock: must be an object { now(): Date }'],
    ['a now() answering a number', { now: () => 1 }, 'clock.now: must return a valid Date (got number)'],
    ['a now() answering an invalid Date', { now: () => new Date('never') }, 'clock.now: must return a valid Date (got an invalid Date)'],
    ['a now() that throws', { now: () => { throw new Error('no time'); } }, 'clock.now: threw no time'],
  ])('refuses %s with a ConfigError naming clock', (_name, value, problem) => {
    let error: unknown;
    try {
      contentRouter({ db, collections: [], clock: value } as ContentConfig);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([expect.stringContaining(problem)]);
  });
});

describe('auth on a moved clock', () => {
  it('signs access tokens at the clock time, and expires them (verified before or not) once the clock passes exp', async () => {
    clock.advance(3 * 86_400_000);
    const user = await registerUser(t);
    const claims = jwt.decode(user.accessToken) as { iat: number; exp: number };
    expect(claims.iat).toBe(Math.floor(clock.now().getTime() / 1000));
    expect(claims.exp).toBe(claims.iat + 900);
    const seen = await login(user.email, user.password);
    expect((await request(t.app).get('/api/users/me').set(...bearer(user.accessToken))).status).toBe(200);

    clock.advance(16 * MINUTE);
    for (const token of [user.accessToken, seen.body.accessToken as string]) {
      const res = await request(t.app).get('/api/users/me').set(...bearer(token));
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('token_expired');
    }
    // The local API's check too.
    await expect(t.api.auth.logout(user.accessToken)).rejects.toThrow(/invalid or expired/);
  });

  it('expires refresh tokens once the clock passes refreshExpiry', async () => {
    const user = await registerUser(t);
    clock.advance(29 * 86_400_000);
    const fresh = await request(t.app).post('/api/users/refresh').send({ refreshToken: user.refreshToken });
    expect(fresh.status).toBe(200);
    clock.advance(31 * 86_400_000);
    expect((await request(t.app).post('/api/users/refresh').send({ refreshToken: fresh.body.refreshToken })).status).toBe(401);
  });

  it('ends a lockout once the clock passes lockTime', async () => {
    const user = await registerUser(t);
    for (let i = 0; i < 3; i++) expect((await login(user.email, 'Wrong-passw0rd')).status).toBe(401);
    const locked = await login(user.email, user.password);
    expect(locked.status).toBe(429);
    expect(locked.headers['retry-after']).toBe('900');
    clock.advance(14 * MINUTE);
    expect((await login(user.email, user.password)).status).toBe(429);
    clock.advance(2 * MINUTE);
    expect((await login(user.email, user.password)).status).toBe(200);
  });

  it('expires reset and verification tokens once the clock passes their expiry', async () => {
    const user = await registerUser(t);
    await request(t.app).post('/api/users/forgot-password').send({ email: user.email }).expect(200);
    const reset = tokenFromMail(t.mails, user.email, /Reset/);
    const verification = tokenFromMail(t.mails, user.email, /Verify/);
    clock.advance(61 * MINUTE);
    const refused = await request(t.app).post('/api/users/reset-password').send({ token: reset, password: 'An0ther-passw0rd!' });
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual([expect.objectContaining({ field: 'token', code: 'invalid_token' })]);
    // Verification lasts 24 h.
    clock.advance(23 * 60 * MINUTE);
    expect((await request(t.app).post('/api/users/verify-email').send({ token: verification })).status).toBe(400);
  });

  it('stamps records and their tokens with the clock time', async () => {
    const user = await registerUser(t);
    const at = clock.now();
    const created = await request(t.app).post('/api/posts').set(...bearer(user.accessToken)).send({ title: 'Clocked' });
    expect(created.status).toBe(201);
    expect(created.body.createdAt).toBe(at.toISOString());
    clock.advance(MINUTE);
    const updated = await request(t.app).patch(`/api/posts/${created.body.id}`).set(...bearer(user.accessToken)).send({ title: 'Later' });
    expect(updated.body.updatedAt).toBe(new Date(at.getTime() + MINUTE).toISOString());
  });
});
