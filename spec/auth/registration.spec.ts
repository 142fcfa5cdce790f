// allowRegistration: false closes public sign-up; admins and server code still create users.
import request from 'supertest';
import { type AuthTestApp, GOOD_PASSWORD, PROBLEM, bearer, createAuthTestApp, uniqueEmail } from './auth-test-app';

let t: AuthTestApp;
let open: AuthTestApp;

beforeAll(async () => {
  t = await createAuthTestApp({ usersAuth: { allowRegistration: false } });
  open = await createAuthTestApp();
});
afterAll(async () => {
  await t.close();
  await open.close();
});

it('answers 403 registration_closed and creates nothing', async () => {
  const email = uniqueEmail('closed');
  const res = await request(t.app).post('/api/users/register').send({ email, password: GOOD_PASSWORD });
  expect(res.status).toBe(403);
  expect(res.headers['content-type']).toMatch(PROBLEM);
  expect(res.body).toMatchObject({ status: 403, code: 'registration_closed' });
  expect(await t.connection.collection('users').countDocuments({ email })).toBe(0);
});

it('still lets server code and admins create users, who can then log in', async () => {
  const viaServer = await t.api.auth.register(uniqueEmail('server'), GOOD_PASSWORD, 'Server');
  expect(viaServer.user.id).toEqual(expect.any(String));
  const admin = await registerAdminDirectly(t);
  const email = uniqueEmail('by-admin');
  const created = await request(t.app).post('/api/users').set(...bearer(admin)).send({ email, password: GOOD_PASSWORD });
  expect(created.status).toBe(201);
  const login = await request(t.app).post('/api/users/login').send({ email, password: GOOD_PASSWORD });
  expect(login.status).toBe(200);
});

it('is open by default', async () => {
  const res = await request(open.app).post('/api/users/register').send({ email: uniqueEmail('open'), password: GOOD_PASSWORD });
  expect(res.status).toBe(201);
});

it('rejects a non-boolean allowRegistration at config time', async () => {
  await expect(createAuthTestApp({ usersAuth: { allowRegistration: 'no' as never } })).rejects.toThrow(/allowRegistration: must be a boolean/);
});

/** An admin's access token when public registration is closed: made through the local API, promoted in the database. */
async function registerAdminDirectly(app: AuthTestApp): Promise<string> {
  const email = uniqueEmail('admin');
  const { user } = await app.api.auth.register(email, GOOD_PASSWORD, 'Admin');
  await app.connection.collection('users').updateOne({ email }, { $set: { role: 'admin' } });
  const { token } = await app.api.auth.login(email, GOOD_PASSWORD);
  expect(user.email).toBe(email);
  return token;
}
