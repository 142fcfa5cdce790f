// An admin (or server code) setting a user's password ends that user's sessions, like a reset does.
import request from 'supertest';
import { Types } from 'mongoose';
import { type AuthTestApp, bearer, createAuthTestApp, registerAdmin, registerUser } from './auth-test-app';

let t: AuthTestApp;
beforeAll(async () => {
  t = await createAuthTestApp();
});
afterAll(() => t.close());

/** Sessions end right after the write (an event listener): wait for the database, never by refreshing (that spends the token). */
async function liveTokensEventually(userId: Types.ObjectId): Promise<number> {
  const tokens = t.connection.collection('users_refresh_tokens');
  let live = -1;
  for (let i = 0; i < 20 && live !== 0; i++) {
    if (i) await new Promise((resolve) => setTimeout(resolve, 50));
    live = await tokens.countDocuments({ userId, revokedAt: null });
  }
  return live;
}

it('ends the sessions of a user whose password an admin sets by PATCH', async () => {
  const user = await registerUser(t);
  const admin = await registerAdmin(t);
  await request(t.app).patch(`/api/users/${user.id}`).set(...bearer(admin.accessToken)).send({ password: 'An0ther-Passw0rd!' }).expect(200);
  const userId = new Types.ObjectId(user.id);
  expect(await t.connection.collection('users_refresh_tokens').countDocuments({ userId })).toBeGreaterThan(0);
  expect(await liveTokensEventually(userId)).toBe(0);
  const refresh = await request(t.app).post('/api/users/refresh').send({ refreshToken: user.refreshToken });
  expect(refresh.status).toBe(401);
  const login = await request(t.app).post('/api/users/login').send({ email: user.email, password: 'An0ther-Passw0rd!' });
  expect(login.status).toBe(200);
});

it('leaves sessions alone when other fields change', async () => {
  const user = await registerUser(t);
  const admin = await registerAdmin(t);
  await request(t.app).patch(`/api/users/${user.id}`).set(...bearer(admin.accessToken)).send({ name: 'Renamed' }).expect(200);
  const res = await request(t.app).post('/api/users/refresh').send({ refreshToken: user.refreshToken });
  expect(res.status).toBe(200);
  expect(res.body.refreshToken).toEqual(expect.any(String));
});
