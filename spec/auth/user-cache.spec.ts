// The user cache behind tokens: writes through the router take effect on the next request;
// writes made behind its back show within auth.userCacheTtl seconds, or at once with 0.
import request from 'supertest';
import { Types } from 'mongoose';
import { type AuthTestApp, bearer, createAuthTestApp, registerAdmin, registerUser } from './auth-test-app';
import { createTestClock } from '../helpers/test-clock';

describe('with the cache on (userCacheTtl: 60)', () => {
  let t: AuthTestApp;
  // The cache's TTL is counted on the router's clock: the spec moves it instead of waiting.
  const clock = createTestClock();
  beforeAll(async () => {
    t = await createAuthTestApp({ auth: { userCacheTtl: 60 }, extra: { clock } });
  });
  afterAll(() => t.close());

  it('a role changed through the API applies to the very next request', async () => {
    const user = await registerUser(t);
    const admin = await registerAdmin(t);
    const before = await request(t.app).get('/api/users').set(...bearer(user.accessToken));
    expect(before.body.data.map((u: { id: string }) => u.id)).toEqual([user.id]);
    await request(t.app).patch(`/api/users/${user.id}`).set(...bearer(admin.accessToken)).send({ role: 'admin' }).expect(200);
    const after = await request(t.app).get('/api/users?perPage=100').set(...bearer(user.accessToken));
    expect(after.body.data.map((u: { id: string }) => u.id)).toEqual(expect.arrayContaining([user.id, admin.id]));
  });

  it('a user deleted through the API is refused at once', async () => {
    const user = await registerUser(t);
    const admin = await registerAdmin(t);
    expect((await request(t.app).get('/api/users/me').set(...bearer(user.accessToken))).status).toBe(200);
    await request(t.app).delete(`/api/users/${user.id}`).set(...bearer(admin.accessToken)).expect(200);
    const res = await request(t.app).get('/api/posts').set(...bearer(user.accessToken));
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer');
  });

  it('a user deleted behind the router is refused once the TTL has passed', async () => {
    const user = await registerUser(t);
    expect((await request(t.app).get('/api/posts').set(...bearer(user.accessToken))).status).toBe(200);
    await t.connection.collection('users').deleteOne({ _id: new Types.ObjectId(user.id) });
    // Documented staleness: another writer's change is seen within userCacheTtl seconds.
    expect((await request(t.app).get('/api/posts').set(...bearer(user.accessToken))).status).toBe(200);
    clock.advance(60_000);
    expect((await request(t.app).get('/api/posts').set(...bearer(user.accessToken))).status).toBe(401);
  });
});

describe('with the cache off (userCacheTtl: 0)', () => {
  let t: AuthTestApp;
  beforeAll(async () => {
    t = await createAuthTestApp({ auth: { userCacheTtl: 0 } });
  });
  afterAll(() => t.close());

  it('reads the user on every request, so a deletion anywhere is seen at once', async () => {
    const user = await registerUser(t);
    expect((await request(t.app).get('/api/posts').set(...bearer(user.accessToken))).status).toBe(200);
    await t.connection.collection('users').deleteOne({ _id: new Types.ObjectId(user.id) });
    expect((await request(t.app).get('/api/posts').set(...bearer(user.accessToken))).status).toBe(401);
  });

  it('rejects a negative TTL at config time', async () => {
    await expect(createAuthTestApp({ auth: { userCacheTtl: -1 } })).rejects.toThrow(/auth\.userCacheTtl/);
  });
});
