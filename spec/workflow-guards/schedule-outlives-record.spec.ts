// Attack 31 (probe): a scheduled publish of a record deleted for good must not publish whatever is later
// re-created under its id (as its preview links must not reopen it).
import request from 'supertest';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';
import { createTestClock } from '../helpers/test-clock';

const editor = asUser({ id: 'e1', role: 'editor' });
const clock = createTestClock();
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ clock, collections: [{ slug: 'articles', versions: { drafts: true, coalesce: 0 }, access: { read: () => true }, fields: { title: { type: 'text' } } }] });
});
afterAll(() => t.close());

test('a pending publish of a discarded never-published draft does not publish its later re-creation', async () => {
  const id = (await request(t.app).post('/api/articles?draft=true').set(...editor).send({ title: 'withdrawn' })).body.id;
  const at = new Date(clock.now().getTime() + 60_000).toISOString();
  expect((await request(t.app).post(`/api/articles/${id}/schedule`).set(...editor).send({ action: 'publish', at })).status).toBe(201);
  expect((await request(t.app).delete(`/api/articles/${id}/draft`).set(...editor)).body).toEqual({ deleted: true });
  // Later, someone restores the old version as a new, private draft to rework it.
  expect((await request(t.app).post(`/api/articles/${id}/versions/1/restore`).set(...editor)).status).toBeLessThan(300);
  clock.advance(120_000);
  await t.api.schedules.runDue();
  expect((await request(t.app).get(`/api/articles/${id}`)).status).toBe(404);
  const list = await request(t.app).get(`/api/articles/${id}/schedule`).set(...editor);
  expect(list.body.data[0].status).not.toBe('done');
});
