// Account lockout: after maxLoginAttempts failures an address is locked for lockTime (429 with
// Retry-After), known and unknown addresses alike; bursts lock cleanly; success and reset clear it.
import request from 'supertest';
import { hashToken } from '../../lib/util/random-token';
import { createTestClock } from '../helpers/test-clock';
import { type AuthTestApp, PROBLEM, createAuthTestApp, registerUser, tokenFromMail, uniqueEmail } from './auth-test-app';

const clock = createTestClock();
let t: AuthTestApp;
beforeAll(async () => {
  t = await createAuthTestApp({ usersAuth: { maxLoginAttempts: 3, lockTime: '1s' }, extra: { clock } });
});
afterAll(() => t.close());
afterEach(() => {
  expect(t.hostErrors).toEqual([]);
  expect(t.logs).toEqual([]);
});

const login = (email: string, password: string) => request(t.app).post('/api/users/login').send({ email, password });

function expectLocked(res: request.Response): void {
  expect(res.status).toBe(429);
  expect(res.headers['content-type']).toMatch(PROBLEM);
  expect(res.headers['retry-after']).toBe('1');
  expect(res.body).toMatchObject({ code: 'account_locked', title: 'Account locked' });
  expect(res.body.detail).toMatch(/locked/);
}

describe('lockout', () => {
  it('locks after 3 failures, refusing even the right password until lockTime has passed', async () => {
    const user = await registerUser(t);
    for (let i = 0; i < 3; i++) expect((await login(user.email, 'Wrong-passw0rd')).status).toBe(401);
    expectLocked(await login(user.email, user.password));
    expectLocked(await login(user.email.toUpperCase(), 'Wrong-passw0rd'));
    // The row is keyed by a digest of the address, not the address itself.
    const row = await t.connection.collection<{ _id: string; lockedUntil?: Date }>('users_login_failures').findOne({ _id: hashToken(user.email) });
    expect(row?.lockedUntil).toBeInstanceOf(Date);
    expect(JSON.stringify(row)).not.toContain(user.email);

    clock.advance(1000);
    expect((await login(user.email, user.password)).status).toBe(200);
  });

  it('locks an unknown address exactly like a known one (no enumeration through the lock)', async () => {
    const email = uniqueEmail('nobody');
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await login(email, 'Wrong-passw0rd')).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
  });

  it('a successful login forgets earlier failures', async () => {
    const user = await registerUser(t);
    for (let i = 0; i < 2; i++) await login(user.email, 'Wrong-passw0rd');
    expect((await login(user.email, user.password)).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await login(user.email, 'Wrong-passw0rd')).status).toBe(401);
    expect((await login(user.email, user.password)).status).toBe(200);
  });

  it('a password reset unlocks the account', async () => {
    const user = await registerUser(t);
    for (let i = 0; i < 3; i++) await login(user.email, 'Wrong-passw0rd');
    expectLocked(await login(user.email, user.password));
    await request(t.app).post('/api/users/forgot-password').send({ email: user.email }).expect(200);
    const token = tokenFromMail(t.mails, user.email, /Reset/);
    await request(t.app).post('/api/users/reset-password').send({ token, password: 'Fresh-passw0rd' }).expect(200);
    expect((await login(user.email, 'Fresh-passw0rd')).status).toBe(200);
  });


});

describe('bursts', () => {
  let burst: AuthTestApp;
  beforeAll(async () => {
    burst = await createAuthTestApp({ usersAuth: { maxLoginAttempts: 3, lockTime: '10m' } });
  });
  afterAll(() => burst.close());

  it('a burst of 25 parallel wrong logins ends in a lock, not a crash', async () => {
    const user = await registerUser(burst);
    const attempt = (password: string) => request(burst.app).post('/api/users/login').send({ email: user.email, password });
    const results = await Promise.all(Array.from({ length: 25 }, () => attempt('Wrong-passw0rd')));
    for (const res of results) {
      expect([401, 429]).toContain(res.status);
      expect(res.headers['content-type']).toMatch(PROBLEM);
    }
    expect(results.filter((r) => r.status === 401).length).toBeGreaterThanOrEqual(3);
    const locked = await attempt(user.password);
    expect(locked.status).toBe(429);
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(590);
    expect(burst.hostErrors).toEqual([]);
    expect(burst.logs).toEqual([]);
  });
});

describe('maxLoginAttempts: 0', () => {
  let open: AuthTestApp;
  beforeAll(async () => {
    open = await createAuthTestApp({ auth: { maxLoginAttempts: 0 } });
  });
  afterAll(() => open.close());

  it('never locks and stores nothing', async () => {
    const user = await registerUser(open);
    for (let i = 0; i < 8; i++) expect((await request(open.app).post('/api/users/login').send({ email: user.email, password: 'nope-nope' })).status).toBe(401);
    expect((await request(open.app).post('/api/users/login').send({ email: user.email, password: user.password })).status).toBe(200);
    expect(await open.connection.collection('users_login_failures').countDocuments()).toBe(0);
  });
});
