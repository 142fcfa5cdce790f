// E-mail verification over HTTP: the mail sent on register, verify-email flipping `verified`, tokens
// single-use, hashed and expiring, send-verification for the caller or by address, requireVerification.
import request from 'supertest';
import { VERIFICATION_REQUESTED } from '../../lib/auth/email-verification';
import { hashToken } from '../../lib/util/random-token';
import { type AuthTestApp, GOOD_PASSWORD, PROBLEM, bearer, createAuthTestApp, expectNoSecrets, registerUser, tokenFromMail, uniqueEmail } from './auth-test-app';

let t: AuthTestApp;
beforeAll(async () => {
  t = await createAuthTestApp({ auth: { verifyEmailUrl: 'https://app.example.com/verify?token={token}' } });
});
afterAll(() => t.close());
afterEach(() => {
  expect(t.hostErrors).toEqual([]);
  expect(t.logs).toEqual([]);
});

const users = () => t.connection.collection('users');
const verify = (token: string) => request(t.app).post('/api/users/verify-email').send({ token });

describe('verification', () => {
  it('register mails a verification link; verify-email flips verified and spends the token', async () => {
    const user = await registerUser(t);
    const mail = t.mails.find((m) => m.to === user.email);
    expect(mail?.subject).toBe('Verify your e-mail address');
    expect(mail?.text).toMatch(/https:\/\/app\.example\.com\/verify\?token=[\w-]{43}/);
    const token = tokenFromMail(t.mails, user.email, /Verify/);
    expect((await users().findOne({ email: user.email }))?.verificationToken).toBe(hashToken(token));

    const res = await verify(token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: expect.any(String), user: expect.objectContaining({ id: user.id, email: user.email, verified: true }) });
    expectNoSecrets(res.body, [token]);
    const stored = await users().findOne({ email: user.email });
    expect(stored?.verified).toBe(true);
    expect(stored).not.toHaveProperty('verificationToken');
    expect(stored).not.toHaveProperty('verificationExpiry');

    const again = await verify(token);
    expect(again.status).toBe(400);
    expect(again.body.errors).toEqual([expect.objectContaining({ field: 'token', code: 'invalid_token' })]);
  });

  it('400 for a wrong or an expired token, and without one', async () => {
    const user = await registerUser(t);
    const token = tokenFromMail(t.mails, user.email, /Verify/);
    await users().updateOne({ email: user.email }, { $set: { verificationExpiry: new Date(Date.now() - 1000) } });
    for (const res of [await verify('wrong'), await verify(token)]) {
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toMatch(PROBLEM);
    }
    expect((await users().findOne({ email: user.email }))?.verified).toBe(false);
    expect((await request(t.app).post('/api/users/verify-email').send({})).status).toBe(400);
  });

  it('send-verification with a token sends a new mail to the caller; once verified it says so and sends nothing', async () => {
    const user = await registerUser(t);
    const res = await request(t.app).post('/api/users/send-verification').set(...bearer(user.accessToken));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'We sent you a verification link.' });
    const token = tokenFromMail(t.mails, user.email, /Verify/);
    await verify(token).expect(200);
    const mailsBefore = t.mails.length;
    const done = await request(t.app).post('/api/users/send-verification').set(...bearer(user.accessToken)).send({});
    expect(done.body).toEqual({ message: 'Your e-mail address is already verified.' });
    expect(t.mails.length).toBe(mailsBefore);
  });

  it('send-verification by address answers generically; only an unverified account gets mail', async () => {
    const user = await registerUser(t);
    const mailsBefore = t.mails.length;
    const known = await request(t.app).post('/api/users/send-verification').send({ email: user.email });
    const unknown = await request(t.app).post('/api/users/send-verification').send({ email: uniqueEmail('nobody') });
    for (const res of [known, unknown]) {
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: VERIFICATION_REQUESTED });
    }
    expect(t.mails.slice(mailsBefore).map((m) => m.to)).toEqual([user.email]);
    // The newest token is the one that works.
    await verify(tokenFromMail(t.mails, user.email, /Verify/)).expect(200);
  });

  it('send-verification without a caller or an address is a 401', async () => {
    const res = await request(t.app).post('/api/users/send-verification');
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer');
  });
});

describe('requireVerification', () => {
  let strict: AuthTestApp;
  beforeAll(async () => {
    strict = await createAuthTestApp({ usersAuth: { requireVerification: true } });
  });
  afterAll(() => strict.close());

  it('register hands out no tokens and login is refused (403) until the address is verified', async () => {
    const email = uniqueEmail();
    const registered = await request(strict.app).post('/api/users/register').send({ email, password: GOOD_PASSWORD });
    expect(registered.status).toBe(201);
    expect(registered.body).toMatchObject({ user: { email }, accessToken: null, refreshToken: null });
    expect(registered.body.message).toMatch(/verify/i);

    const refused = await request(strict.app).post('/api/users/login').send({ email, password: GOOD_PASSWORD });
    expect(refused.status).toBe(403);
    expect(refused.headers['content-type']).toMatch(PROBLEM);
    expect(refused.body.code).toBe('email_not_verified');
    // A wrong password still answers like any wrong password: no hint that the address exists.
    expect((await request(strict.app).post('/api/users/login').send({ email, password: 'Wrong-passw0rd' })).status).toBe(401);

    await request(strict.app).post('/api/users/verify-email').send({ token: tokenFromMail(strict.mails, email, /Verify/) }).expect(200);
    const ok = await request(strict.app).post('/api/users/login').send({ email, password: GOOD_PASSWORD });
    expect(ok.status).toBe(200);
    expect(ok.body.user.verified).toBe(true);
  });
});
