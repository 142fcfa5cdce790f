// A read hook that never settles holds back one subscriber's events: past maxBufferedEvents waiting, that
// subscriber is dropped (as a client that stops reading is) and the others go on receiving.
import type { CollectionConfig } from '../../lib';
import { type SseClient, openSse } from './realtime-clients';
import { type RealtimeTestApp, createRealtimeTestApp, hostUser, admin } from './realtime-test-app';

jest.setTimeout(30_000);

const STALLS: CollectionConfig = {
  slug: 'stalls',
  fields: { title: { type: 'text' } },
  access: { read: () => true },
  // Hangs for the admin's subscription only.
  hooks: { afterRead: [({ user }) => (user?.role === 'admin' ? new Promise(() => undefined) : undefined)] },
};

let t: RealtimeTestApp;
beforeAll(async () => {
  t = await createRealtimeTestApp({ maxBufferedEvents: 5 }, { collections: [STALLS] });
});
afterAll(() => t.close());

it('drops the stalled subscriber past maxBufferedEvents; the others still receive every event', async () => {
  const stalled: SseClient = await openSse(t.server, '/api/sse?collections=stalls', hostUser(admin));
  const healthy: SseClient = await openSse(t.server, '/api/sse?collections=stalls');
  const ids: string[] = [];
  for (let i = 0; i < 8; i++) ids.push((await t.api.local.create('stalls', { title: `e${i}` })).id);
  const last = await healthy.events.find((e) => (JSON.parse(e.data) as { docId: string }).docId === ids[7]);
  expect(last).toBeDefined();
  await stalled.ended;
  expect(t.logs.some((line) => line.includes('events waited for its read hooks'))).toBe(true);
  healthy.close();
});
