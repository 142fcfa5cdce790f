// A database outage while checking credentials is a 503, never "unauthenticated" (401) and never a
// credential leaked into the log line of the failure.
import request from 'supertest';
import { type AuthTestApp, bearer, createAuthTestApp, registerUser } from './auth-test-app';

let t: AuthTestApp;
afterAll(() => t?.close().catch(() => undefined));

it('answers 503 for a JWT, an API key and a login while the database is down', async () => {
  t = await createAuthTestApp();
  const user = await registerUser(t);
  const key = (await request(t.app).post('/api/users/api-keys').set(...bearer(user.accessToken)).send({ name: 'k' })).body.apiKey.key;
  // Fail fast instead of buffering for 10 s, then take the connection down.
  t.connection.set('bufferCommands', false);
  for (const model of Object.values(t.connection.models)) model.schema.set('bufferCommands', false);
  await t.connection.close(true);

  const responses = [
    await request(t.app).get('/api/posts').set(...bearer(user.accessToken)),
    await request(t.app).get('/api/posts').set('X-API-Key', key),
    await request(t.app).post('/api/users/login').send({ email: user.email, password: user.password }),
    await request(t.app).post('/api/users/refresh').send({ refreshToken: user.refreshToken }),
  ];
  for (const res of responses) {
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBeDefined();
    expect(res.body.code).toBe('service_unavailable');
  }
  expect(t.hostErrors).toEqual([]);
  const logged = t.logs.join('\n');
  for (const secret of [user.accessToken, user.refreshToken, key, user.password]) expect(logged).not.toContain(secret);
});
