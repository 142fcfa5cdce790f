// Forgot/reset password over HTTP: one generic 200 for every address, a hashed single-use expiring
// token delivered by e-mail, the policy enforced, and every session revoked by a reset.
import request from 'supertest';
import { hashToken } from '../../lib/util/random-token';
import { RESET_REQUESTED } from '../../lib/auth/password-reset';
import { type AuthTestApp, PROBLEM, bearer, createAuthTestApp, expectNoSecrets, registerUser, tokenFromMail, uniqueEmail } from './auth-test-app';

let t: AuthTestApp;
beforeAll(async () => {
  t = await createAuthTestApp({ auth: { password: { minLength: 10, requireNumbers: true } } });
});
afterAll(() => t.close());
afterEach(() => {
  expect(t.hostErrors).toEqual([]);
  expect(t.logs).toEqual([]);
});

const users = () => t.connection.collection('users');
const NEW_PASSWORD = 'brand-new-passw0rd';

async function forgot(email: string): Promise<request.Response> {
  return request(t.app).post('/api/users/forgot-password').send({ email });
}

describe('POST /users/forgot-password', () => {
  it('answers 200 with the same generic message for a known and an unknown address; only the known one gets mail', async () => {
    const user = await registerUser(t);
    const mailsBefore = t.mails.length;
    const known = await forgot(user.email);
    const unknown = await forgot(uniqueEmail('nobody'));
    for (const res of [known, unknown]) {
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: RESET_REQUESTED });
    }
    expect(t.mails.slice(mailsBefore).map((m) => [m.to, m.subject])).toEqual([[user.email, 'Reset your password']]);
  });

  it('stores only the hash of the mailed token, expiring in 1 hour; the token never appears in a response', async () => {
    const user = await registerUser(t);
    const res = await forgot(user.email.toUpperCase());
    const token = tokenFromMail(t.mails, user.email, /Reset/);
    expectNoSecrets(res.body, [token]);
    const stored = await users().findOne({ email: user.email });
    expect(stored?.resetToken).toBe(hashToken(token));
    expect(JSON.stringify(stored)).not.toContain(token);
    const expiresIn = (stored?.resetExpiry as Date).getTime() - Date.now();
    expect(expiresIn).toBeGreaterThan(59 * 60_000);
    expect(expiresIn).toBeLessThanOrEqual(60 * 60_000);
  });

  it('400 for an invalid or missing address (that reveals nothing about accounts)', async () => {
    const invalid = await forgot('not-an-email');
    expect(invalid.status).toBe(400);
    expect(invalid.headers['content-type']).toMatch(PROBLEM);
    expect(invalid.body.errors).toEqual([expect.objectContaining({ field: 'email', code: 'invalid_email' })]);
    expect((await request(t.app).post('/api/users/forgot-password').send({})).status).toBe(400);
  });
});

describe('POST /users/reset-password', () => {
  it('sets the new password, spends the token, and revokes every refresh token', async () => {
    const user = await registerUser(t);
    const session = await request(t.app).post('/api/users/login').send({ email: user.email, password: user.password });
    await forgot(user.email);
    const token = tokenFromMail(t.mails, user.email, /Reset/);
    const hashBefore = (await users().findOne({ email: user.email }))?.password;

    const res = await request(t.app).post('/api/users/reset-password').send({ token, password: NEW_PASSWORD });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: expect.any(String) });

    const stored = await users().findOne({ email: user.email });
    expect(stored?.password).toMatch(/^scrypt\$/);
    expect(stored?.password).not.toBe(hashBefore);
    expect(stored).not.toHaveProperty('resetToken');
    expect(stored).not.toHaveProperty('resetExpiry');

    for (const refreshToken of [user.refreshToken, session.body.refreshToken]) {
      expect((await request(t.app).post('/api/users/refresh').send({ refreshToken })).status).toBe(401);
    }
    expect((await request(t.app).post('/api/users/login').send({ email: user.email, password: user.password })).status).toBe(401);
    expect((await request(t.app).post('/api/users/login').send({ email: user.email, password: NEW_PASSWORD })).status).toBe(200);
  });

  it('400 for a used, a wrong and an expired token', async () => {
    const user = await registerUser(t);
    await forgot(user.email);
    const token = tokenFromMail(t.mails, user.email, /Reset/);
    await request(t.app).post('/api/users/reset-password').send({ token, password: NEW_PASSWORD }).expect(200);

    const used = await request(t.app).post('/api/users/reset-password').send({ token, password: 'another-passw0rd' });
    const wrong = await request(t.app).post('/api/users/reset-password').send({ token: 'not-the-token', password: 'another-passw0rd' });
    await forgot(user.email);
    const fresh = tokenFromMail(t.mails, user.email, /Reset/);
    await users().updateOne({ email: user.email }, { $set: { resetExpiry: new Date(Date.now() - 1000) } });
    const expired = await request(t.app).post('/api/users/reset-password').send({ token: fresh, password: 'another-passw0rd' });
    for (const res of [used, wrong, expired]) {
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toMatch(PROBLEM);
      expect(res.body.errors).toEqual([expect.objectContaining({ field: 'token', code: 'invalid_token' })]);
    }
    expect((await request(t.app).post('/api/users/login').send({ email: user.email, password: NEW_PASSWORD })).status).toBe(200);
  });

  it('400 listing every broken rule for a weak password; the token is not spent', async () => {
    const user = await registerUser(t, { password: 'first-passw0rd' });
    await forgot(user.email);
    const token = tokenFromMail(t.mails, user.email, /Reset/);
    const weak = await request(t.app).post('/api/users/reset-password').send({ token, password: 'weak' });
    expect(weak.status).toBe(400);
    expect(weak.body.errors.map((e: { code: string }) => e.code)).toEqual(['too_short', 'missing_number']);
    expect((await request(t.app).post('/api/users/reset-password').send({ token, password: NEW_PASSWORD })).status).toBe(200);
  });

  it('400 naming missing fields', async () => {
    const res = await request(t.app).post('/api/users/reset-password').send({});
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(['token', 'password']);
  });

  it('a reset token is no credential anywhere else', async () => {
    const user = await registerUser(t);
    await forgot(user.email);
    const token = tokenFromMail(t.mails, user.email, /Reset/);
    expect((await request(t.app).get('/api/users/me').set(...bearer(token))).status).toBe(401);
    expect((await request(t.app).post('/api/users/refresh').send({ refreshToken: token })).status).toBe(401);
  });
});
