// WebSocket upgrades when the host's express (the package's peer) is Express 4: the upgrade request is
// dressed with Express 4's req/res, so the rate limit reads req.ip and refusals are written as with Express 5.
import { type WsClient, openWs } from './realtime-clients';
import { type RealtimeTestApp, createRealtimeTestApp } from './realtime-test-app';

// Every `express` the package (and the test host) imports is Express 4 in this file.
jest.mock('express', () => jest.requireActual('express4'));
jest.setTimeout(30_000);

let t: RealtimeTestApp;
let client: WsClient | undefined;

beforeAll(async () => {
  t = await createRealtimeTestApp(true, { extra: { security: { rateLimit: { max: 1 } } } });
  t.app.set('trust proxy', 1);
});
afterAll(async () => {
  client?.close();
  expect(t.hostErrors).toEqual([]);
  await t.close();
});

it('limits upgrades by client IP (trust proxy honoured) and refuses with 429 problem+json', async () => {
  client = await openWs(t.server, '/api/ws', { headers: { 'X-Forwarded-For': '203.0.113.9' } });
  client.send({ type: 'subscribe', collections: ['open'] });
  expect(await client.next((m) => m.type === 'subscribed')).toEqual({ type: 'subscribed', collections: ['open'] });
  const refused = await openWs(t.server, '/api/ws', { headers: { 'X-Forwarded-For': '203.0.113.9' } }).catch((e: { status: number; headers: Record<string, string>; body: string }) => e);
  expect(refused).toMatchObject({ status: 429 });
  const { headers, body } = refused as { headers: Record<string, string>; body: string };
  expect(headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(headers.ratelimit).toMatch(/^"api"; r=0;/);
  expect(JSON.parse(body)).toMatchObject({ status: 429, code: 'rate_limited' });
  const other = await openWs(t.server, '/api/ws', { headers: { 'X-Forwarded-For': '203.0.113.10' } });
  other.close();
});
