// a schedule id is cancelled only through its own record's route (publish rule of that record).
import request from 'supertest';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';

const alice = asUser({ id: 'alice', role: 'author' });
const mallory = asUser({ id: 'mallory', role: 'author' });
let t: TestApp;

beforeAll(async () => {
  const own = ({ user }: { user: { id?: unknown } | null }) => (user ? { owner: { eq: String(user.id) } } : false);
  t = await createTestApp({
    collections: [
      { slug: 'articles', versions: { drafts: true }, access: { read: () => true, create: () => true, update: own, readDrafts: own, publish: own }, fields: { title: { type: 'text' }, owner: { type: 'text' } } },
      { slug: 'notes', versions: { drafts: true }, access: { read: () => true, create: () => true, update: () => true, readDrafts: () => true, publish: () => true }, fields: { title: { type: 'text' } } },
    ],
    globals: [{ slug: 'site', versions: { drafts: true }, access: { read: () => true, update: ({ user }) => (user as { id?: string } | null)?.id === 'alice' }, fields: { headline: { type: 'text' } } }],
  });
});
afterAll(() => t.close());

test("mallory cannot cancel alice's scheduled action through her own record's or another collection's route", async () => {
  const at = new Date(Date.now() + 3_600_000).toISOString();
  const a = (await request(t.app).post('/api/articles').set(...alice).send({ title: 'a', owner: 'alice' })).body.id;
  const s = await request(t.app).post(`/api/articles/${a}/schedule`).set(...alice).send({ action: 'unpublish', at });
  expect(s.status).toBe(201);
  expect((await request(t.app).patch('/api/globals/site').set(...alice).send({ headline: 'h' })).status).toBeLessThan(300);
  const g = await request(t.app).post('/api/globals/site/schedule').set(...alice).send({ action: 'unpublish', at });
  expect(g.status).toBe(201);
  const m = (await request(t.app).post('/api/articles').set(...mallory).send({ title: 'm', owner: 'mallory' })).body.id;
  const n = (await request(t.app).post('/api/notes').set(...mallory).send({ title: 'n' })).body.id;
  for (const id of [s.body.id, g.body.id]) {
    for (const path of [`/api/articles/${m}/schedule/${id}`, `/api/notes/${n}/schedule/${id}`]) {
      const res = await request(t.app).delete(path).set(...mallory);
      expect([path, res.status]).toEqual([path, 404]);
    }
  }
  expect((await request(t.app).delete(`/api/articles/${a}/schedule/${s.body.id}`).set(...mallory)).status).not.toBe(200);
  const list = await request(t.app).get(`/api/articles/${a}/schedule`).set(...alice);
  expect(list.body.data[0].status).toBe('pending');
  const glist = await request(t.app).get('/api/globals/site/schedule').set(...alice);
  expect(glist.body.data[0].status).toBe('pending');
  // listing alice's schedule is refused to mallory
  expect((await request(t.app).get(`/api/articles/${a}/schedule`).set(...mallory)).status).not.toBe(200);
});
