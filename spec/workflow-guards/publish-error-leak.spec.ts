// a publish's error answers never show a draft's values (nor a field the caller may not read) to a
// caller who may publish but not read drafts.
import request from 'supertest';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';

const editor = asUser({ id: 'e1', role: 'editor' });
const publisher = asUser({ id: 'p1', role: 'publisher' });
let t: TestApp;

beforeAll(async () => {
  const is = (...roles: string[]) => ({ user }: { user: { role?: unknown } | null }) => roles.includes(String(user?.role));
  t = await createTestApp({
    collections: [
      {
        slug: 'articles',
        versions: { drafts: true, coalesce: 0 },
        access: { read: () => true, create: is('editor', 'publisher'), update: is('editor'), publish: is('editor', 'publisher'), readDrafts: is('editor') },
        fields: {
          title: { type: 'text', required: true },
          code: { type: 'text', unique: true, access: { read: is('editor') } },
        },
      },
    ],
    globals: [
      { slug: 'site', versions: { drafts: true }, access: { read: () => true, update: is('editor'), publish: is('editor', 'publisher'), readDrafts: is('editor') }, fields: { headline: { type: 'text' } } },
    ],
  });
});
afterAll(() => t.close());

test('409 and 400 answers of a publish hold no draft value', async () => {
  await request(t.app).post('/api/articles').set(...editor).send({ title: 'taken', code: 'SECRET-CODE-123' });
  const id = (await request(t.app).post('/api/articles?draft=true').set(...editor).send({ title: 'EMBARGO-TITLE', code: 'SECRET-CODE-123' })).body.id;
  const conflict = await request(t.app).post(`/api/articles/${id}/publish`).set(...publisher);
  expect(conflict.status).toBe(409);
  expect(JSON.stringify(conflict.body)).not.toContain('SECRET-CODE-123');
  expect(JSON.stringify(conflict.body)).not.toContain('EMBARGO-TITLE');
  const id2 = (await request(t.app).post('/api/articles?draft=true').set(...editor).send({ code: 'OTHER-SECRET' })).body.id;
  const invalid = await request(t.app).post(`/api/articles/${id2}/publish`).set(...publisher);
  expect(invalid.status).toBe(400);
  expect(JSON.stringify(invalid.body)).not.toContain('OTHER-SECRET');
  // the 412 of a stale If-Match gives the refused caller no ETag of the draft
  const stale = await request(t.app).post(`/api/articles/${id2}/publish`).set(...publisher).set('If-Match', '"nope"');
  expect(stale.status).toBe(412);
  expect(stale.headers.etag).toBeUndefined();
});

test('unpublish by a caller who may publish but not read drafts does not answer it the working copy', async () => {
  const id = (await request(t.app).post('/api/articles').set(...editor).send({ title: 'Live title' })).body.id;
  expect((await request(t.app).patch(`/api/articles/${id}/draft`).set(...editor).send({ title: 'UNPUBLISHED-REWRITE' })).status).toBe(200);
  expect((await request(t.app).get(`/api/articles/${id}/draft`).set(...publisher)).status).toBe(403);
  const un = await request(t.app).post(`/api/articles/${id}/unpublish`).set(...publisher);
  expect(un.status).toBeLessThan(500);
  expect(JSON.stringify(un.body)).not.toContain('UNPUBLISHED-REWRITE');
});

test('a scheduled action list shows a caller who may not read drafts no draft ETag or values', async () => {
  const id = (await request(t.app).post('/api/articles?draft=true').set(...editor).send({ title: 'SCHEDULED-SECRET' })).body.id;
  const at = new Date(Date.now() + 3_600_000).toISOString();
  expect((await request(t.app).post(`/api/articles/${id}/schedule`).set(...publisher).send({ action: 'publish', at })).status).toBe(201);
  const list = await request(t.app).get(`/api/articles/${id}/schedule`).set(...publisher);
  expect(JSON.stringify(list.body)).not.toContain('SCHEDULED-SECRET');
});

test("a global's unpublish does not answer its working copy to a caller readDrafts refuses", async () => {
  expect((await request(t.app).patch('/api/globals/site').set(...editor).send({ headline: 'Live' })).status).toBeLessThan(300);
  expect((await request(t.app).patch('/api/globals/site/draft').set(...editor).send({ headline: 'GLOBAL-REWRITE' })).status).toBe(200);
  const un = await request(t.app).post('/api/globals/site/unpublish').set(...publisher);
  expect(un.status).toBeLessThan(500);
  expect(JSON.stringify(un.body)).not.toContain('GLOBAL-REWRITE');
});
