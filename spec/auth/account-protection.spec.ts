// Accounts: a stolen access token cannot take one over (by changing its e-mail, then resetting the
// password); a soft-deleted user is locked out everywhere; any password the policy accepts logs in.
import request from 'supertest';
import { type AuthTestApp, GOOD_PASSWORD, bearer, createAuthTestApp, registerAdmin, registerUser, tokenFromMail, uniqueEmail } from './auth-test-app';

let t: AuthTestApp;
beforeAll(async () => {
  t = await createAuthTestApp({ collections: [{ slug: 'members', auth: true, softDelete: true, fields: {} }] });
});
afterAll(() => t.close());
afterEach(() => {
  expect(t.hostErrors).toEqual([]);
  expect(t.logs).toEqual([]);
});

describe('e-mail changes', () => {
  it('a user may not change its own e-mail by PATCH (403): with a stolen access token that was a full takeover', async () => {
    const victim = await registerUser(t);
    const attacker = uniqueEmail('attacker');
    const res = await request(t.app).patch(`/api/users/${victim.id}`).set(...bearer(victim.accessToken)).send({ email: attacker });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('forbidden_field');
    // The takeover path: the reset mail goes to the address on the account, still the victim's.
    await request(t.app).post('/api/users/forgot-password').send({ email: attacker }).expect(200);
    expect(t.mails.some((m) => m.to === attacker)).toBe(false);
    const me = await request(t.app).get('/api/users/me').set(...bearer(victim.accessToken));
    expect(me.body.email).toBe(victim.email);
  });

  it('nor pair a verification token with an address it never received', async () => {
    const user = await registerUser(t);
    const token = tokenFromMail(t.mails, user.email, /Verify/);
    const res = await request(t.app).patch(`/api/users/${user.id}`).set(...bearer(user.accessToken)).send({ email: uniqueEmail('ceo') });
    expect(res.status).toBe(403);
    const verified = await request(t.app).post('/api/users/verify-email').send({ token });
    expect(verified.body.user.email).toBe(user.email);
  });

  it('a user still updates its other fields, and an admin still changes e-mails', async () => {
    const user = await registerUser(t);
    const admin = await registerAdmin(t);
    expect((await request(t.app).patch(`/api/users/${user.id}`).set(...bearer(user.accessToken)).send({ name: 'New', bio: 'b' })).status).toBe(200);
    const email = uniqueEmail('moved');
    const res = await request(t.app).patch(`/api/users/${user.id}`).set(...bearer(admin.accessToken)).send({ email });
    expect(res.status).toBe(200);
    expect(res.body.email).toBe(email);
  });
});

describe('a soft-deleted user (auth collection with softDelete)', () => {
  it('is locked out: its access token, API key, refresh token, login, reset and verification all fail', async () => {
    const admin = await registerAdmin(t);
    const email = uniqueEmail('member');
    const reg = await request(t.app).post('/api/members/register').send({ email, password: GOOD_PASSWORD }).expect(201);
    const { accessToken, refreshToken } = reg.body;
    const key = (await request(t.app).post('/api/members/api-keys').set(...bearer(accessToken)).send({ name: 'k' })).body.apiKey.key;
    const verifyToken = tokenFromMail(t.mails, email, /Verify/);
    // An admin of users is an admin of members too (role admin, whichever collection vouched for it).
    await request(t.app).delete(`/api/members/${reg.body.user.id}`).set(...bearer(admin.accessToken)).expect(200);
    t.mails.length = 0;

    expect((await request(t.app).get('/api/members/me').set(...bearer(accessToken))).status).toBe(401);
    expect((await request(t.app).get('/api/posts').set(...bearer(accessToken))).status).toBe(401);
    expect((await request(t.app).get('/api/posts').set('X-API-Key', key)).status).toBe(401);
    expect((await request(t.app).post('/api/members/refresh').send({ refreshToken })).status).toBe(401);
    const login = await request(t.app).post('/api/members/login').send({ email, password: GOOD_PASSWORD });
    expect(login.status).toBe(401);
    expect(login.body.code).toBe('invalid_credentials');
    await request(t.app).post('/api/members/forgot-password').send({ email }).expect(200);
    await request(t.app).post('/api/members/send-verification').send({ email }).expect(200);
    expect(t.mails).toEqual([]);
    expect((await request(t.app).post('/api/members/verify-email').send({ token: verifyToken })).status).toBe(400);
  });

  it('comes back when restored', async () => {
    const admin = await registerAdmin(t);
    const email = uniqueEmail('member');
    const reg = await request(t.app).post('/api/members/register').send({ email, password: GOOD_PASSWORD }).expect(201);
    await request(t.app).delete(`/api/members/${reg.body.user.id}`).set(...bearer(admin.accessToken)).expect(200);
    expect((await request(t.app).post('/api/members/login').send({ email, password: GOOD_PASSWORD })).status).toBe(401);
    await request(t.app).post(`/api/members/${reg.body.user.id}/restore`).set(...bearer(admin.accessToken)).expect(200);
    expect((await request(t.app).post('/api/members/login').send({ email, password: GOOD_PASSWORD })).status).toBe(200);
  });
});

describe('long passwords', () => {
  it('a password the policy accepts (1024 characters as the user counts them) also logs in and resets', async () => {
    // 600 emoji: 600 characters for the policy, 1200 UTF-16 code units.
    const password = '🔑'.repeat(600);
    const user = await registerUser(t, { password });
    const login = await request(t.app).post('/api/users/login').send({ email: user.email, password });
    expect(login.status).toBe(200);
    await request(t.app).post('/api/users/forgot-password').send({ email: user.email }).expect(200);
    const token = tokenFromMail(t.mails, user.email, /Reset/);
    expect((await request(t.app).post('/api/users/reset-password').send({ token, password: '🗝'.repeat(1000) })).status).toBe(200);
  });

  it('a longer one is a 400 everywhere, before any hashing', async () => {
    const user = await registerUser(t);
    const password = 'a'.repeat(1025);
    expect((await request(t.app).post('/api/users/login').send({ email: user.email, password })).status).toBe(400);
    expect((await request(t.app).post('/api/users/register').send({ email: uniqueEmail(), password })).status).toBe(400);
    expect((await request(t.app).post('/api/users/login').send({ email: user.email, password: 'a'.repeat(200_000) })).status).toBe(400);
  });
});
