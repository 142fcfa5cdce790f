// an API key with only the `read` scope must not change workflow state: minting preview links
// (new bearer credentials to drafts), revoking everyone's links, or (the control) scheduling/publishing.
import request from 'supertest';
import { type AuthTestApp, bearer, createAuthTestApp, registerUser } from '../auth/auth-test-app';

let t: AuthTestApp;
beforeAll(async () => {
  t = await createAuthTestApp({
    collections: [{ slug: 'articles', versions: { drafts: true }, access: { read: () => true }, fields: { title: { type: 'text' } } }],
  });
});
afterAll(() => t.close());

test('a read-only API key cannot mint or revoke preview links', async () => {
  const user = await registerUser(t);
  const editor = bearer(user.accessToken);
  const key = (await request(t.app).post('/api/users/api-keys').set(...editor).send({ name: 'site builder', scopes: ['read'] })).body.apiKey.key;
  const readKey: [string, string] = ['X-API-Key', key];
  const id = (await request(t.app).post('/api/articles?draft=true').set(...editor).send({ title: 'draft' })).body.id;
  const link = await request(t.app).post(`/api/articles/${id}/preview`).set(...editor).send({});
  expect(link.status).toBe(201);

  // control: the key may read the draft (a read), and may not publish (a write)
  expect((await request(t.app).get(`/api/articles/${id}/draft`).set(...readKey)).status).toBe(200);
  expect((await request(t.app).post(`/api/articles/${id}/publish`).set(...readKey)).status).toBe(403);

  const revoke = await request(t.app).delete(`/api/articles/${id}/preview`).set(...readKey);
  const mint = await request(t.app).post(`/api/articles/${id}/preview`).set(...readKey).send({ expiresIn: '7d' });
  expect([revoke.status, revoke.body.code]).toEqual([403, 'insufficient_scope']);
  expect([mint.status, mint.body.code]).toEqual([403, 'insufficient_scope']);
  // the editor's link still works
  expect((await request(t.app).get(`/api/articles/${id}/draft?preview=${link.body.token}`)).status).toBe(200);
});
