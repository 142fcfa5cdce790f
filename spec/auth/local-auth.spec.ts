// api.auth: the local operations on the same code paths as HTTP (register, login -> { user,
// token }, logout, verification, password reset), for the first auth collection or a named one.
import request from 'supertest';
import { contentRouter } from '../../lib';
import { hashToken } from '../../lib/util/random-token';
import { openTestConnection, closeTestConnection } from '../helpers/test-db';
import { type AuthTestApp, FAST_HASH, GOOD_PASSWORD, SECRET, bearer, createAuthTestApp, expectNoSecrets, tokenFromMail, uniqueEmail } from './auth-test-app';

let t: AuthTestApp;
beforeAll(async () => {
  t = await createAuthTestApp({ collections: [{ slug: 'admins', auth: { jwtExpiry: '5m' }, fields: {} }] });
});
afterAll(() => t.close());
afterEach(() => {
  expect(t.hostErrors).toEqual([]);
  expect(t.logs).toEqual([]);
});

const refreshRow = (token: string) => t.connection.collection('users_refresh_tokens').findOne({ tokenHash: hashToken(token) });

describe('api.auth', () => {
  it('register(email, password, name) answers like POST /register', async () => {
    const email = uniqueEmail('local');
    const result = await t.api.auth.register(email, GOOD_PASSWORD, 'Local');
    expect(result).toEqual({ user: { id: expect.any(String), email, name: 'Local' }, accessToken: expect.any(String), refreshToken: expect.any(String), message: expect.any(String) });
    await expect(t.api.auth.register(email, GOOD_PASSWORD)).rejects.toMatchObject({ status: 409 });
    await expect(t.api.auth.register('not-an-email', 'x')).rejects.toMatchObject({ status: 400 });
  });

  it('login(email, password) returns { user, token } (token is the access token) and refuses bad credentials alike', async () => {
    const email = uniqueEmail('local');
    await t.api.auth.register(email, GOOD_PASSWORD);
    const result = await t.api.auth.login(email, GOOD_PASSWORD);
    expect(result).toMatchObject({ user: { email, role: 'user' }, token: expect.any(String) });
    expect(result.token).toBe(result.accessToken);
    expectNoSecrets(result.user);
    expect((await request(t.app).get('/api/users/me').set(...bearer(result.token))).status).toBe(200);
    const wrong = await t.api.auth.login(email, 'nope').catch((e: unknown) => e);
    const unknown = await t.api.auth.login(uniqueEmail('nobody'), 'nope').catch((e: unknown) => e);
    expect(wrong).toMatchObject({ status: 401, code: 'invalid_credentials' });
    expect(unknown).toMatchObject({ status: 401, code: 'invalid_credentials', message: (wrong as Error).message });
    await expect(t.api.auth.login(email, 42 as never)).rejects.toMatchObject({ status: 400 });
  });

  it('logout(refreshToken) ends that session; logout(accessToken) ends the session it was issued with', async () => {
    const email = uniqueEmail('local');
    await t.api.auth.register(email, GOOD_PASSWORD);
    const a = await t.api.auth.login(email, GOOD_PASSWORD);
    const b = await t.api.auth.login(email, GOOD_PASSWORD);
    await t.api.auth.logout(a.refreshToken);
    expect((await refreshRow(a.refreshToken))?.revokedAt).toBeInstanceOf(Date);
    await t.api.auth.logout(b.token);
    expect((await refreshRow(b.refreshToken))?.revokedAt).toBeInstanceOf(Date);
    await expect(t.api.auth.logout(a.refreshToken)).rejects.toMatchObject({ status: 401 });
    await expect(t.api.auth.logout('a.b.c')).rejects.toMatchObject({ status: 401 });
  });

  it('sendVerificationEmail(userId) and verifyEmail(token)', async () => {
    const email = uniqueEmail('local');
    const { user } = await t.api.auth.register(email, GOOD_PASSWORD);
    const before = t.mails.length;
    await t.api.auth.sendVerificationEmail(user.id);
    expect(t.mails.length).toBe(before + 1);
    const verified = await t.api.auth.verifyEmail(tokenFromMail(t.mails, email, /Verify/));
    expect(verified).toMatchObject({ id: user.id, verified: true });
    await t.api.auth.sendVerificationEmail(user.id);
    expect(t.mails.length).toBe(before + 1);
    await expect(t.api.auth.sendVerificationEmail('0123456789abcdef01234567')).rejects.toMatchObject({ status: 404 });
    await expect(t.api.auth.verifyEmail('nope')).rejects.toMatchObject({ status: 400 });
  });

  it('requestPasswordReset(email) and resetPassword(token, newPassword)', async () => {
    const email = uniqueEmail('local');
    const { refreshToken } = await t.api.auth.register(email, GOOD_PASSWORD);
    await t.api.auth.requestPasswordReset(uniqueEmail('nobody'));
    await t.api.auth.requestPasswordReset(email);
    await t.api.auth.resetPassword(tokenFromMail(t.mails, email, /Reset/), 'Another-passw0rd');
    expect((await refreshRow(refreshToken!))?.revokedAt).toBeInstanceOf(Date);
    await expect(t.api.auth.login(email, 'Another-passw0rd')).resolves.toMatchObject({ user: { email } });
    await expect(t.api.auth.resetPassword('used-or-wrong', 'Another-passw0rd')).rejects.toMatchObject({ status: 400 });
    await expect(t.api.auth.requestPasswordReset('bad')).rejects.toMatchObject({ status: 400 });
  });

  it('collection(slug) gives the same operations on another auth collection, with its own options', async () => {
    const admins = t.api.auth.collection('admins');
    const email = uniqueEmail('admin');
    await admins.register(email, GOOD_PASSWORD);
    const session = await admins.login(email, GOOD_PASSWORD);
    expect(session.expiresIn).toBe(300);
    // An access token of admins logs out through the users binding as well (it names its collection).
    await t.api.auth.logout(session.token);
    const row = await t.connection.collection('admins_refresh_tokens').findOne({ tokenHash: hashToken(session.refreshToken) });
    expect(row?.revokedAt).toBeInstanceOf(Date);
    await expect(t.api.auth.login(email, GOOD_PASSWORD)).rejects.toMatchObject({ status: 401 });
    expect(() => t.api.auth.collection('posts')).toThrow(/not an auth collection/);
    // HTTP routes exist for both collections.
    expect((await request(t.app).get('/api/admins/me').set(...bearer(session.token))).status).toBe(200);
  });
});

describe('a router without auth collections', () => {
  it('has no auth routes and api.auth explains itself', async () => {
    const connection = await openTestConnection();
    try {
      const api = contentRouter({ db: { connection }, auth: { jwtSecret: SECRET, passwordHash: FAST_HASH }, collections: [{ slug: 'posts', fields: {} }] });
      await api.ready;
      await expect(api.auth.login('a@example.com', 'x')).rejects.toThrow(/needs a collection with auth: true/);
      await api.close();
    } finally {
      await closeTestConnection(connection);
    }
  });
});
