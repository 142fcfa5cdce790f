// a publish rule answering a where (owners publish their own articles) must not let a caller
// overwrite or withdraw a published record outside it by editing the working copy first.
import request from 'supertest';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';

const alice = asUser({ id: 'alice', role: 'author' });
const mallory = asUser({ id: 'mallory', role: 'author' });
let t: TestApp;

beforeAll(async () => {
  const author = ({ user }: { user: { role?: unknown } | null }) => user?.role === 'author';
  t = await createTestApp({
    collections: [
      {
        slug: 'articles',
        versions: { drafts: true, coalesce: 0 },
        access: {
          read: () => true,
          create: author,
          update: author, // authors may suggest edits to anyone's working copy...
          readDrafts: author,
          publish: ({ user }) => (user ? { owner: { eq: user.id } } : false), // ...but publish only their own
        },
        fields: { title: { type: 'text' }, owner: { type: 'text' } },
      },
    ],
  });
});
afterAll(() => t.close());

test("a caller outside the publish where cannot publish over another owner's published record", async () => {
  const id = (await request(t.app).post('/api/articles').set(...alice).send({ title: 'Alice original', owner: 'alice' })).body.id;
  expect(id).toBeTruthy();
  // Mallory cannot write the published record directly (the publish where narrows it):
  expect((await request(t.app).patch(`/api/articles/${id}`).set(...mallory).send({ title: 'defaced' })).status).toBeGreaterThanOrEqual(403);
  // ...but may edit the working copy; moving the owner to herself then publishing must still be refused.
  expect((await request(t.app).patch(`/api/articles/${id}/draft`).set(...mallory).send({ title: 'DEFACED', owner: 'mallory' })).status).toBe(200);
  const pub = await request(t.app).post(`/api/articles/${id}/publish`).set(...mallory);
  expect([403, 404]).toContain(pub.status);
  expect((await request(t.app).get(`/api/articles/${id}`)).body.title).toBe('Alice original');
});

test("a caller outside the publish where cannot unpublish another owner's record", async () => {
  const id = (await request(t.app).post('/api/articles').set(...alice).send({ title: 'Alice second', owner: 'alice' })).body.id;
  expect((await request(t.app).patch(`/api/articles/${id}/draft`).set(...mallory).send({ owner: 'mallory' })).status).toBe(200);
  const un = await request(t.app).post(`/api/articles/${id}/unpublish`).set(...mallory);
  expect([403, 404]).toContain(un.status);
  expect((await request(t.app).get(`/api/articles/${id}`)).status).toBe(200);
});

test("restore ?publish=true of a caller's own draft version is refused on another owner's published record", async () => {
  const id = (await request(t.app).post('/api/articles').set(...alice).send({ title: 'Alice third', owner: 'alice' })).body.id;
  expect((await request(t.app).patch(`/api/articles/${id}/draft`).set(...mallory).send({ title: 'DEFACED3', owner: 'mallory' })).status).toBe(200);
  const versions = await request(t.app).get(`/api/articles/${id}/versions`).set(...mallory);
  const newest = versions.body.data[0].version;
  const restored = await request(t.app).post(`/api/articles/${id}/versions/${newest}/restore?publish=true`).set(...mallory);
  expect([403, 404]).toContain(restored.status);
  expect((await request(t.app).get(`/api/articles/${id}`)).body.title).toBe('Alice third');
});

test("a scheduled publish by a caller outside the publish where does not overwrite another owner's record", async () => {
  const id = (await request(t.app).post('/api/articles').set(...alice).send({ title: 'Alice fourth', owner: 'alice' })).body.id;
  expect((await request(t.app).patch(`/api/articles/${id}/draft`).set(...mallory).send({ title: 'DEFACED4', owner: 'mallory' })).status).toBe(200);
  const at = new Date(Date.now() + 1500).toISOString();
  const scheduled = await request(t.app).post(`/api/articles/${id}/schedule`).set(...mallory).send({ action: 'publish', at });
  if (scheduled.status === 201) {
    await new Promise((resolve) => setTimeout(resolve, 2000));
    await t.api.schedules.runDue();
  } else expect([403, 404]).toContain(scheduled.status);
  expect((await request(t.app).get(`/api/articles/${id}`)).body.title).toBe('Alice fourth');
});
