// Answers carrying tokens or keys are never stored by caches, mail goes out after
// the answer, a user changes their password with the current one (ending other sessions), and a reset
// may revoke API keys.
import express, { type NextFunction, type Request, type Response } from 'express';
import request from 'supertest';
import type { EmailMessage } from '../../lib';
import { type AuthTestApp, GOOD_PASSWORD, PROBLEM, bearer, createAuthTestApp, registerUser, tokenFromMail } from './auth-test-app';

describe('Cache-Control: no-store on answers that carry a token or key', () => {
  let t: AuthTestApp;
  beforeAll(async () => {
    t = await createAuthTestApp();
  });
  afterAll(() => t.close());

  it('register, login, refresh and api-keys creation answer with no-store', async () => {
    const user = await registerUser(t);
    const register = await request(t.app).post('/api/users/register').send({ email: `x${Date.now()}@example.com`, password: GOOD_PASSWORD });
    const login = await request(t.app).post('/api/users/login').send({ email: user.email, password: user.password });
    const refresh = await request(t.app).post('/api/users/refresh').send({ refreshToken: login.body.refreshToken });
    const key = await request(t.app).post('/api/users/api-keys').set(...bearer(user.accessToken)).send({ name: 'k' });
    for (const res of [register, login, refresh, key]) {
      expect(res.status).toBeLessThan(300);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers.pragma).toBe('no-cache');
    }
    // A plain read is not no-store: a caller's read, kept by the caller's own cache only, revalidated.
    const me = await request(t.app).get('/api/users/me').set(...bearer(user.accessToken));
    expect(me.headers['cache-control']).toBe('private, no-cache');
  });
});

describe('POST /users/change-password', () => {
  let t: AuthTestApp;
  beforeAll(async () => {
    t = await createAuthTestApp({ auth: { maxLoginAttempts: 3 } });
  });
  afterAll(() => t.close());

  const change = (token: string, body: Record<string, unknown>) => request(t.app).post('/api/users/change-password').set(...bearer(token)).send(body);

  it('sets the new password, ends every other session and returns a new one', async () => {
    const user = await registerUser(t);
    const other = await request(t.app).post('/api/users/login').send({ email: user.email, password: user.password });
    const res = await change(user.accessToken, { currentPassword: user.password, password: 'another-Passw0rd!' });
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({ message: expect.any(String), accessToken: expect.any(String), refreshToken: expect.any(String), expiresIn: expect.any(Number) });
    // The other session (and the caller's old refresh token) can no longer refresh; the new one can.
    expect((await request(t.app).post('/api/users/refresh').send({ refreshToken: other.body.refreshToken })).status).toBe(401);
    expect((await request(t.app).post('/api/users/refresh').send({ refreshToken: user.refreshToken })).status).toBe(401);
    expect((await request(t.app).post('/api/users/refresh').send({ refreshToken: res.body.refreshToken })).status).toBe(200);
    // Old password out, new one in.
    expect((await request(t.app).post('/api/users/login').send({ email: user.email, password: user.password })).status).toBe(401);
    expect((await request(t.app).post('/api/users/login').send({ email: user.email, password: 'another-Passw0rd!' })).status).toBe(200);
  });

  it('400 naming currentPassword when it is wrong, and nothing changes', async () => {
    const user = await registerUser(t);
    const before = await t.connection.collection('users').findOne({ email: user.email });
    const res = await change(user.accessToken, { currentPassword: 'wrong-password-1', password: 'another-Passw0rd!' });
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(PROBLEM);
    expect(res.body.errors).toEqual([expect.objectContaining({ field: 'currentPassword', code: 'invalid_password' })]);
    const after = await t.connection.collection('users').findOne({ email: user.email });
    expect(after?.password).toBe(before?.password);
  });

  it('counts wrong current passwords toward the lockout', async () => {
    const user = await registerUser(t);
    for (let i = 0; i < 3; i++) await change(user.accessToken, { currentPassword: `wrong-${i}-password`, password: 'another-Passw0rd!' });
    const res = await change(user.accessToken, { currentPassword: user.password, password: 'another-Passw0rd!' });
    expect(res.status).toBe(429);
    expect(res.body.code).toBe('account_locked');
  });

  it('applies the password policy, and needs a login (not an API key, not anonymous)', async () => {
    const user = await registerUser(t);
    const weak = await change(user.accessToken, { currentPassword: user.password, password: 'x' });
    expect(weak.status).toBe(400);
    expect(weak.body.errors[0].field).toBe('password');
    const key = (await request(t.app).post('/api/users/api-keys').set(...bearer(user.accessToken)).send({ name: 'k' })).body.apiKey.key;
    const byKey = await request(t.app).post('/api/users/change-password').set('X-API-Key', key).send({ currentPassword: user.password, password: 'another-Passw0rd!' });
    expect(byKey.status).toBe(403);
    expect((await request(t.app).post('/api/users/change-password').send({ currentPassword: 'a', password: 'b' })).status).toBe(401);
    const missing = await change(user.accessToken, {});
    expect(missing.status).toBe(400);
    expect(missing.body.errors.map((e: { field: string }) => e.field)).toEqual(['currentPassword', 'password']);
  });
});

describe('revokeApiKeysOnReset', () => {
  it('deletes the user\'s API keys on a reset when set, keeps them by default', async () => {
    for (const revoke of [true, false]) {
      const t = await createAuthTestApp({ auth: { revokeApiKeysOnReset: revoke } });
      try {
        const user = await registerUser(t);
        const key = (await request(t.app).post('/api/users/api-keys').set(...bearer(user.accessToken)).send({ name: 'k' })).body.apiKey.key;
        await request(t.app).post('/api/users/forgot-password').send({ email: user.email }).expect(200);
        await new Promise((resolve) => setImmediate(resolve));
        const token = tokenFromMail(t.mails, user.email, /Reset/);
        await request(t.app).post('/api/users/reset-password').send({ token, password: 'after-Reset-passw0rd' }).expect(200);
        const me = await request(t.app).get('/api/users/me').set('X-API-Key', key);
        expect(me.status).toBe(revoke ? 401 : 200);
      } finally {
        await t.close();
      }
    }
  });
});

describe('mail goes out after the answer', () => {
  it('calls email.send for forgot-password and send-verification only once the response has ended', async () => {
    const ended: boolean[] = [];
    let current: Response | undefined;
    const t = await createAuthTestApp({
      send: (_mail: EmailMessage) => void ended.push(current?.writableEnded === true),
    });
    try {
      // A host middleware in front of the router remembers the response in flight.
      const host = express();
      host.use((_req: Request, res: Response, next: NextFunction) => {
        current = res;
        next();
      });
      host.use(t.app);
      const user = await registerUser(t);
      await new Promise((resolve) => setImmediate(resolve));
      ended.length = 0; // registration's own verification mail is not under test here
      await request(host).post('/api/users/forgot-password').send({ email: user.email }).expect(200);
      await request(host).post('/api/users/send-verification').send({ email: user.email }).expect(200);
      await new Promise((resolve) => setImmediate(resolve));
      expect(ended).toEqual([true, true]);
    } finally {
      await t.close();
    }
  });
});
