// Refresh rotation racing with revocation: logout(-all), a password reset or reuse detection landing
// between spending a refresh token and issuing its successor ends the successor's session too.
import request from 'supertest';
import { type AuthTestApp, type Registered, bearer, createAuthTestApp, registerUser, tokenFromMail } from './auth-test-app';

let t: AuthTestApp;
beforeAll(async () => {
  t = await createAuthTestApp();
});
afterAll(() => t.close());
afterEach(() => {
  expect(t.hostErrors).toEqual([]);
  expect(t.logs).toEqual([]);
});

type Create = (...args: unknown[]) => Promise<unknown>;

/**
 * Starts POST /refresh with the user's refresh token and holds it between spending the token and storing
 * its successor; `revoke` runs in that window, then the refresh completes.
 */
async function refreshAround(user: Registered, revoke: () => Promise<unknown>): Promise<request.Response> {
  const model = t.connection.models['content-router:auth:users_refresh_tokens'] as unknown as { create: Create };
  const original = model.create;
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let entered!: () => void;
  const inside = new Promise<void>((resolve) => (entered = resolve));
  model.create = async (...args: unknown[]) => {
    model.create = original;
    entered();
    await gate;
    return original.apply(model, args);
  };
  const pending = request(t.app).post('/api/users/refresh').send({ refreshToken: user.refreshToken }).then((res) => res);
  await inside;
  await revoke();
  release();
  return pending;
}

/** The rotated token, if the refresh handed one out, must not refresh again. */
async function expectSessionEnded(res: request.Response): Promise<void> {
  if (res.status === 200) {
    const next = await request(t.app).post('/api/users/refresh').send({ refreshToken: res.body.refreshToken });
    expect(next.status).toBe(401);
  } else {
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('refresh_token_revoked');
  }
}

it('logout-all during a refresh ends the session being rotated', async () => {
  const user = await registerUser(t);
  const res = await refreshAround(user, () => request(t.app).post('/api/users/logout-all').set(...bearer(user.accessToken)).expect(200));
  await expectSessionEnded(res);
});

it('a password reset during a refresh ends the session being rotated', async () => {
  const user = await registerUser(t);
  await request(t.app).post('/api/users/forgot-password').send({ email: user.email }).expect(200);
  const token = tokenFromMail(t.mails, user.email, /Reset/);
  const res = await refreshAround(user, () => request(t.app).post('/api/users/reset-password').send({ token, password: 'Fresh-passw0rd' }).expect(200));
  await expectSessionEnded(res);
});

it('reuse detected during a refresh ends the session being rotated', async () => {
  const user = await registerUser(t);
  const res = await refreshAround(user, async () => {
    const reuse = await request(t.app).post('/api/users/refresh').send({ refreshToken: user.refreshToken });
    expect(reuse.body.code).toBe('refresh_token_reused');
  });
  await expectSessionEnded(res);
});

it('logout of the session during a refresh ends it', async () => {
  const user = await registerUser(t);
  const res = await refreshAround(user, () => request(t.app).post('/api/users/logout').send({ refreshToken: user.refreshToken }).expect(200));
  await expectSessionEnded(res);
});

it('logout-all still counts live sessions only', async () => {
  const user = await registerUser(t);
  await request(t.app).post('/api/users/refresh').send({ refreshToken: user.refreshToken }).expect(200);
  await request(t.app).post('/api/users/login').send({ email: user.email, password: user.password }).expect(200);
  const res = await request(t.app).post('/api/users/logout-all').set(...bearer(user.accessToken));
  expect(res.body.revoked).toBe(2);
  expect((await request(t.app).post('/api/users/logout-all').set(...bearer(user.accessToken))).body.revoked).toBe(0);
});
