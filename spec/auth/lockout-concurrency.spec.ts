// The login lock holds under concurrency. Parallel guesses used to all pass the "locked?" check
// before any failure was recorded, so 3 allowed attempts became as many as were sent.
import request from 'supertest';
import { type AuthTestApp, createAuthTestApp, registerUser } from './auth-test-app';

let t: AuthTestApp;
beforeAll(async () => {
  t = await createAuthTestApp({ usersAuth: { maxLoginAttempts: 3, lockTime: '10m' } });
});
afterAll(() => t.close());
afterEach(() => {
  expect(t.hostErrors).toEqual([]);
  expect(t.logs).toEqual([]);
});

const login = (email: string, password: string) => request(t.app).post('/api/users/login').send({ email, password });

it('of 20 parallel guesses only maxLoginAttempts are checked; the right password among them does not get in', async () => {
  const user = await registerUser(t);
  const guesses = Array.from({ length: 20 }, (_, i) => (i === 19 ? user.password : `Wrong-passw0rd-${i}`));
  const results = await Promise.all(guesses.map((password) => login(user.email, password)));
  const statuses = results.map((r) => r.status);
  // Each 401 or 200 is a password actually checked; the rest must be refused before checking.
  expect(statuses.filter((s) => s !== 429).length).toBeLessThanOrEqual(3);
  expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(17);
  expect((await login(user.email, user.password)).status).toBe(429);
});

it('the same holds for e-mail variants of one address (case, surrounding whitespace)', async () => {
  const user = await registerUser(t);
  const variants = [user.email, user.email.toUpperCase(), ` ${user.email} `, `${user.email[0].toUpperCase()}${user.email.slice(1)}`];
  const results = await Promise.all(Array.from({ length: 12 }, (_, i) => login(variants[i % variants.length], `Wrong-passw0rd-${i}`)));
  expect(results.filter((r) => r.status === 401).length).toBeLessThanOrEqual(3);
  expect((await login(user.email, user.password)).status).toBe(429);
});

it('sequential logins keep their meaning: successes do not count, failures lock on the 3rd', async () => {
  const user = await registerUser(t);
  for (let i = 0; i < 5; i++) expect((await login(user.email, user.password)).status).toBe(200);
  for (let i = 0; i < 2; i++) expect((await login(user.email, 'Wrong-passw0rd')).status).toBe(401);
  expect((await login(user.email, user.password)).status).toBe(200);
  for (let i = 0; i < 3; i++) expect((await login(user.email, 'Wrong-passw0rd')).status).toBe(401);
  const locked = await login(user.email, user.password);
  expect(locked.status).toBe(429);
  expect(Number(locked.headers['retry-after'])).toBeGreaterThan(590);
});
