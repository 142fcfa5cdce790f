// a preview link of a record deleted for good must never open the record created again under its id.
import request from 'supertest';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';
import * as previewTarget from '../../lib/operations/preview/preview-target';

const editor = asUser({ id: 'e1', role: 'editor' });
let t: TestApp;

beforeAll(async () => {
  const isEditor = ({ user }: { user: { role?: unknown } | null }) => user?.role === 'editor';
  t = await createTestApp({
    collections: [
      {
        slug: 'articles',
        versions: { drafts: true, coalesce: 0 },
        access: { read: () => true, create: isEditor, update: isEditor, delete: isEditor, publish: isEditor, readDrafts: isEditor, readVersions: isEditor },
        fields: { title: { type: 'text' } },
      },
    ],
  });
});
afterAll(() => t.close());

const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

test('discarding a never-published draft (deleted for good) forgets its links; a restore does not reopen them', async () => {
  const id = (await request(t.app).post('/api/articles?draft=true').set(...editor).send({ title: 'first life' })).body.id;
  const link = await request(t.app).post(`/api/articles/${id}/preview`).set(...editor).send({});
  expect(link.status).toBe(201);
  const discarded = await request(t.app).delete(`/api/articles/${id}/draft`).set(...editor);
  expect(discarded.body).toEqual({ deleted: true });
  await settle();
  const restored = await request(t.app).post(`/api/articles/${id}/versions/1/restore`).set(...editor);
  expect(restored.status).toBeLessThan(300);
  const opened = await request(t.app).get(`/api/articles/${id}/draft?preview=${link.body.token}`);
  expect(opened.status).toBe(401);
});

test('deleting a published record for good forgets its links; a restore does not reopen them', async () => {
  const id = (await request(t.app).post('/api/articles').set(...editor).send({ title: 'published life' })).body.id;
  const link = await request(t.app).post(`/api/articles/${id}/preview`).set(...editor).send({});
  expect((await request(t.app).delete(`/api/articles/${id}`).set(...editor)).status).toBe(200);
  await settle();
  const restored = await request(t.app).post(`/api/articles/${id}/versions/1/restore`).set(...editor);
  expect(restored.status).toBeLessThan(300);
  const opened = await request(t.app).get(`/api/articles/${id}/draft?preview=${link.body.token}`);
  expect(opened.status).toBe(401);
});

test('the links are forgotten before the delete answers: a restore right after a discard does not reopen them', async () => {
  // The forgetting runs after the delete answered, behind it (a changeCommitted listener, not awaited). Model
  // a slow moment of the database (a busy server) by delaying the read it makes first by 300 ms.
  const real = previewTarget.workingCopyRow;
  const spy = jest.spyOn(previewTarget, 'workingCopyRow').mockImplementation(async (...args) => {
    await new Promise((resolve) => setTimeout(resolve, 300));
    return real(...args);
  });
  try {
    const id = (await request(t.app).post('/api/articles?draft=true').set(...editor).send({ title: 'first life' })).body.id;
    const link = await request(t.app).post(`/api/articles/${id}/preview`).set(...editor).send({});
    expect((await request(t.app).delete(`/api/articles/${id}/draft`).set(...editor)).body).toEqual({ deleted: true });
    // No link of a record deleted for good may open anything from here on.
    expect((await request(t.app).post(`/api/articles/${id}/versions/1/restore`).set(...editor)).status).toBeLessThan(300);
    await settle();
    await settle();
    expect((await request(t.app).get(`/api/articles/${id}/draft?preview=${link.body.token}`)).status).toBe(401);
  } finally {
    spy.mockRestore();
  }
});
