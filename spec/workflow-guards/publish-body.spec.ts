// publish and unpublish take no body; one that carries values is a 400 problem (as the schedule
// and preview routes refuse unknown fields), not a 200 that silently publishes something else.
import request from 'supertest';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';

const editor = asUser({ id: 'e1', role: 'editor' });
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ collections: [{ slug: 'articles', versions: { drafts: true }, access: { read: () => true }, fields: { title: { type: 'text' } } }] });
});
afterAll(() => t.close());

test('a publish with a body of values is refused, not ignored', async () => {
  const id = (await request(t.app).post('/api/articles?draft=true').set(...editor).send({ title: 'draft title' })).body.id;
  const res = await request(t.app).post(`/api/articles/${id}/publish`).set(...editor).send({ title: 'what the client meant to publish' });
  expect([res.status, res.type]).toEqual([400, 'application/problem+json']);
  expect((await request(t.app).get(`/api/articles/${id}`)).status).toBe(404);
});

test('an unpublish with a body is refused, not ignored', async () => {
  const id = (await request(t.app).post('/api/articles').set(...editor).send({ title: 'live' })).body.id;
  const res = await request(t.app).post(`/api/articles/${id}/unpublish`).set(...editor).send({ at: '2099-01-01T00:00:00Z' });
  expect([res.status, res.type]).toEqual([400, 'application/problem+json']);
  expect((await request(t.app).get(`/api/articles/${id}`)).status).toBe(200);
});
