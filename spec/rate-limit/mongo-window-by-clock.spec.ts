// The `mongo` rate-limit store opens and ends its windows by the router's clock (`clock`): a client limited
// in one window is served again once the clock passes the window's end, with no wait.
import request from 'supertest';
import { type TestApp, createTestApp } from '../helpers/create-test-app';
import { createTestClock } from '../helpers/test-clock';

let t: TestApp;
const clock = createTestClock();
beforeAll(async () => {
  t = await createTestApp({
    clock,
    security: { rateLimit: { max: 2, windowMs: 60_000, store: 'mongo' } },
    collections: [{ slug: 'posts', sortable: [], access: { read: () => true }, fields: { title: { type: 'text' } } }],
  });
});
afterAll(() => t.close());

it('serves a limited client again once the clock passes the end of its window', async () => {
  const list = () => request(t.app).get('/api/posts');
  expect((await list()).status).toBe(200);
  expect((await list()).status).toBe(200);
  expect((await list()).status).toBe(429);
  clock.advance(59_000);
  expect((await list()).status).toBe(429);
  clock.advance(2_000);
  expect((await list()).status).toBe(200);
  // The row is dated by the same clock.
  const [row] = await t.connection.collection('content-router.rate-limits').find().toArray();
  expect((row.resetAt as Date).getTime()).toBe(clock.now().getTime() + 60_000);
});
