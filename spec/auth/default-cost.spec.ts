// Register and login end to end at the real default scrypt cost (N=2^15, r=8, p=1), and a hash made
// with another cost upgraded on the next login.
import request from 'supertest';
import { createTestApp, type TestApp } from '../helpers/create-test-app';
import { verifyPassword } from '../../lib/auth/password-hash';
import { GOOD_PASSWORD, SECRET, uniqueEmail } from './auth-test-app';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ auth: { jwtSecret: SECRET }, email: { send: () => undefined }, collections: [{ slug: 'users', auth: true, fields: {} }] });
});
afterAll(() => t.close());

it('hashes with the default cost and logs in with it', async () => {
  const email = uniqueEmail('default-cost');
  await request(t.app).post('/api/users/register').send({ email, password: GOOD_PASSWORD }).expect(201);
  const stored = await t.connection.collection('users').findOne({ email });
  expect(stored?.password).toMatch(/^scrypt\$32768\$8\$1\$/);
  const res = await request(t.app).post('/api/users/login').send({ email, password: GOOD_PASSWORD });
  expect(res.status).toBe(200);
  expect(res.body.user.email).toBe(email);
});

it('upgrades a hash made with another cost on the next successful login', async () => {
  const email = uniqueEmail('rehash');
  const created = await t.api.local.create('users', { email, password: GOOD_PASSWORD });
  // As if the user had been created while the configured cost was lower.
  const { hashPassword } = await import('../../lib/auth/password-hash');
  await t.connection.collection('users').updateOne({ email }, { $set: { password: await hashPassword(GOOD_PASSWORD, { cost: 1024, blockSize: 8, parallelization: 1 }) } });
  await request(t.app).post('/api/users/login').send({ email, password: GOOD_PASSWORD }).expect(200);
  const stored = await t.connection.collection('users').findOne({ email });
  expect(stored?.password).toMatch(/^scrypt\$32768\$8\$1\$/);
  expect(await verifyPassword(GOOD_PASSWORD, stored?.password)).toBe(true);
  expect(created.id).toBe(String(stored?._id));
});
