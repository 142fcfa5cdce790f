// A draft must be unreachable through the version routes for a caller the readDrafts rule refuses.
// Here history is public (readVersions: true) but working copies are for editors only.
import request from 'supertest';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';

const editor = asUser({ id: 'e1', role: 'editor' });
const reader = asUser({ id: 'r1', role: 'reader' });
let t: TestApp;

beforeAll(async () => {
  const isEditor = ({ user }: { user: { role?: unknown } | null }) => user?.role === 'editor';
  t = await createTestApp({
    collections: [
      {
        slug: 'articles',
        versions: { drafts: true, coalesce: 0 },
        access: { read: () => true, create: isEditor, update: isEditor, delete: isEditor, publish: isEditor, readDrafts: isEditor, readVersions: () => true },
        fields: { title: { type: 'text' }, body: { type: 'text' } },
      },
    ],
    globals: [
      { slug: 'site', versions: { drafts: true, coalesce: 0 }, access: { read: () => true, update: isEditor, publish: isEditor, readDrafts: isEditor, readVersions: () => true }, fields: { headline: { type: 'text' } } },
    ],
  });
});
afterAll(() => t.close());

test('a never-published draft is not readable through GET /:id/versions by a caller readDrafts refuses', async () => {
  const created = await request(t.app).post('/api/articles?draft=true').set(...editor).send({ title: 'SECRET-EMBARGOED' });
  expect(created.status).toBe(201);
  const id = created.body.id;
  // The public record does not exist, the draft route refuses the reader...
  expect((await request(t.app).get(`/api/articles/${id}`)).status).toBe(404);
  expect((await request(t.app).get(`/api/articles/${id}/draft`).set(...reader)).status).toBe(403);
  // ...so the history must not hand the reader the draft either.
  const version = await request(t.app).get(`/api/articles/${id}/versions/1`).set(...reader);
  expect(JSON.stringify(version.body)).not.toContain('SECRET-EMBARGOED');
  const list = await request(t.app).get(`/api/articles/${id}/versions`);
  expect(list.status).not.toBe(200);
});

test('unpublished changes of a published record are not readable through a version or a diff against=draft', async () => {
  const created = await request(t.app).post('/api/articles').set(...editor).send({ title: 'Public title' });
  const id = created.body.id;
  const saved = await request(t.app).patch(`/api/articles/${id}/draft`).set(...editor).send({ body: 'UNPUBLISHED-PLAN' });
  expect(saved.status).toBe(200);
  expect((await request(t.app).get(`/api/articles/${id}`)).body.body ?? null).toBeNull();
  const latest = await request(t.app).get(`/api/articles/${id}/versions/2`).set(...reader);
  expect(JSON.stringify(latest.body)).not.toContain('UNPUBLISHED-PLAN');
  const diff = await request(t.app).get(`/api/articles/${id}/versions/1/diff?against=draft`).set(...reader);
  expect(JSON.stringify(diff.body)).not.toContain('UNPUBLISHED-PLAN');
});

test("a global's unpublished working copy is not readable through its versions by a caller readDrafts refuses", async () => {
  expect((await request(t.app).patch('/api/globals/site/draft').set(...editor).send({ headline: 'GLOBAL-EMBARGO' })).status).toBe(200);
  expect((await request(t.app).get('/api/globals/site/draft').set(...reader)).status).toBe(403);
  const list = await request(t.app).get('/api/globals/site/versions').set(...reader);
  const newest = list.body.data?.[0]?.version ?? 1;
  const version = await request(t.app).get(`/api/globals/site/versions/${newest}`).set(...reader);
  expect(JSON.stringify(version.body)).not.toContain('GLOBAL-EMBARGO');
});
