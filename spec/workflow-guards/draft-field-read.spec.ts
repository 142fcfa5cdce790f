// Field read rules hold on working copies: the draft get, the draft list (values, where, sort,
// select) and the answers of draft writes never show a field the caller's read rule denies.
import request from 'supertest';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';

const editor = asUser({ id: 'e1', role: 'editor' });
const admin = asUser({ id: 'a1', role: 'admin' });
let t: TestApp;

beforeAll(async () => {
  const staff = ({ user }: { user: { role?: unknown } | null }) => user?.role === 'editor' || user?.role === 'admin';
  t = await createTestApp({
    collections: [
      {
        slug: 'articles',
        versions: { drafts: true },
        access: { read: () => true, create: staff, update: staff, readDrafts: staff, publish: staff },
        fields: {
          title: { type: 'text' },
          salary: { type: 'text', access: { read: ({ user }) => user?.role === 'admin' } },
          grade: { type: 'text', access: { create: ({ user }) => user?.role === 'admin', update: ({ user }) => user?.role === 'admin' } },
        },
      },
    ],
    globals: [
      {
        slug: 'site',
        versions: { drafts: true },
        access: { read: () => true, update: staff, readDrafts: staff, publish: staff },
        fields: { headline: { type: 'text' }, budget: { type: 'text', access: { read: ({ user }) => user?.role === 'admin' } } },
      },
    ],
  });
});
afterAll(() => t.close());

test("an editor's draft reads never show a field only admins may read", async () => {
  const id = (await request(t.app).post('/api/articles?draft=true').set(...admin).send({ title: 't', salary: 'SALARY-99999' })).body.id;
  // control: the published record hides it from the editor
  const pubId = (await request(t.app).post('/api/articles').set(...admin).send({ title: 'p', salary: 'SALARY-PUB' })).body.id;
  expect(JSON.stringify((await request(t.app).get(`/api/articles/${pubId}`).set(...editor)).body)).not.toContain('SALARY-PUB');

  const leaks: string[] = [];
  const check = (what: string, body: unknown) => { if (JSON.stringify(body).includes('SALARY')) leaks.push(what); };
  const one = await request(t.app).get(`/api/articles/${id}/draft`).set(...editor);
  expect(one.status).toBe(200);
  check('GET /:id/draft', one.body);
  check('GET ?draft=true', (await request(t.app).get('/api/articles?draft=true').set(...editor)).body);
  check('PATCH /:id/draft', (await request(t.app).patch(`/api/articles/${id}/draft`).set(...editor).send({ title: 'u' })).body);
  check('GET /:id/draft (published record)', (await request(t.app).get(`/api/articles/${pubId}/draft`).set(...editor)).body);
  check('GET /:id/draft?fields=salary', (await request(t.app).get(`/api/articles/${id}/draft?fields=salary`).set(...editor)).body);
  check('POST /:id/unpublish', (await request(t.app).post(`/api/articles/${pubId}/unpublish`).set(...editor)).body);
  // no oracle through where: as on the published list, the field does not exist for the editor
  const hit = await request(t.app).get('/api/articles').query({ draft: 'true', 'where[salary][eq]': 'SALARY-99999' }).set(...editor);
  const miss = await request(t.app).get('/api/articles').query({ draft: 'true', 'where[salary][eq]': 'nope' }).set(...editor);
  if (hit.status !== miss.status || (hit.body.data ?? []).length !== (miss.body.data ?? []).length) leaks.push(`where oracle: ${hit.status}/${(hit.body.data ?? []).length} vs ${miss.status}/${(miss.body.data ?? []).length}`);
  const pubHit = await request(t.app).get('/api/articles').query({ 'where[salary][eq]': 'SALARY-PUB' }).set(...editor);
  leaks.push(`(control, published list where on salary: ${pubHit.status})`);
  expect(leaks).toEqual([expect.stringContaining('control')]);
});

test("a global's working copy hides a field the caller may not read", async () => {
  expect((await request(t.app).patch('/api/globals/site/draft').set(...admin).send({ headline: 'h', budget: 'BUDGET-SECRET' })).status).toBe(200);
  const read = await request(t.app).get('/api/globals/site/draft').set(...editor);
  expect(read.status).toBe(200);
  expect(JSON.stringify(read.body)).not.toContain('BUDGET-SECRET');
});

test('field create and update rules hold on draft writes', async () => {
  const made = await request(t.app).post('/api/articles?draft=true').set(...editor).send({ title: 'g', grade: 'A+' });
  expect(made.status).toBe(403);
  const id = (await request(t.app).post('/api/articles?draft=true').set(...editor).send({ title: 'g2' })).body.id;
  expect((await request(t.app).patch(`/api/articles/${id}/draft`).set(...editor).send({ grade: 'A+' })).status).toBe(403);
});
