// realtime.maxConnectionsPerClient over real sockets: SSE streams and WebSockets count together per
// client (its user when signed in, else its IP); past the cap an SSE request is a 429 problem+json and
// an upgrade is refused with one; closing a connection frees its place, and refused requests hold none.
import type http from 'node:http';
import { registerUser } from '../auth/auth-test-app';
import { eventually } from '../helpers/eventually';
import { type SseClient, type WsClient, openSse, openWs } from './realtime-clients';
import { type RealtimeTestApp, createRealtimeTestApp } from './realtime-test-app';

jest.setTimeout(30_000);

const TOO_MANY = {
  type: 'urn:content-router:problem:too_many_connections',
  title: 'Too many connections',
  status: 429,
  detail: 'At most 2 open realtime connections per client: close one first.',
  code: 'too_many_connections',
};

let t: RealtimeTestApp;
const open: Array<SseClient | WsClient> = [];

async function sse(path = '/api/sse?collections=open'): Promise<SseClient> {
  const client = await openSse(t.server, path);
  open.push(client);
  return client;
}

async function ws(path = '/api/ws'): Promise<WsClient> {
  const client = await openWs(t.server, path);
  open.push(client);
  return client;
}

async function refusedUpgrade(path = '/api/ws'): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  const outcome = await ws(path).then(
    () => undefined,
    (error: { status: number; headers: http.IncomingHttpHeaders; body: string }) => error,
  );
  if (!outcome) throw new Error('the upgrade was accepted');
  return outcome;
}

/** Waits until the router has seen the closes (the client's close reaches the server a little later). */
const openCount = (expected: { sse: number; ws: number }) => eventually(async () => expect(t.api.realtime!.stats()).toEqual(expected));

beforeEach(async () => {
  t = await createRealtimeTestApp({ maxConnectionsPerClient: 2 });
});
afterEach(async () => {
  for (const client of open.splice(0)) client.close();
  expect(t.hostErrors).toEqual([]);
  await t.close();
});

describe('realtime.maxConnectionsPerClient', () => {
  it('refuses an SSE stream and a WebSocket past the cap with 429 problem+json', async () => {
    expect((await sse()).status).toBe(200);
    expect((await sse()).status).toBe(200);
    const third = await sse();
    expect(third.status).toBe(429);
    expect(third.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(third.body)).toEqual(TOO_MANY);
    const upgrade = await refusedUpgrade();
    expect(upgrade.status).toBe(429);
    expect(upgrade.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(upgrade.body)).toEqual(TOO_MANY);
    expect(t.api.realtime!.stats()).toEqual({ sse: 2, ws: 0 });
  });

  it('counts SSE and WebSocket together, and frees a place when a connection closes', async () => {
    const stream = await sse();
    const socket = await ws();
    expect((await sse()).status).toBe(429);
    stream.close();
    await openCount({ sse: 0, ws: 1 });
    expect((await sse()).status).toBe(200);
    expect((await refusedUpgrade()).status).toBe(429);
    socket.close();
    await openCount({ sse: 1, ws: 0 });
    await ws();
    expect(t.api.realtime!.stats()).toEqual({ sse: 1, ws: 1 });
  });

  it('frees the place of a WebSocket closed with a close handshake', async () => {
    const first = await ws();
    await sse();
    first.socket.close(1000);
    await first.closed;
    await openCount({ sse: 1, ws: 0 });
    await ws();
  });

  it('counts a signed-in user on its own, wherever it connects from', async () => {
    await sse();
    await sse();
    const user = await registerUser(t);
    expect((await sse(`/api/sse?collections=open&token=${user.accessToken}`)).status).toBe(200);
    await ws(`/api/ws?token=${user.accessToken}`);
    expect((await sse(`/api/sse?collections=open&token=${user.accessToken}`)).status).toBe(429);
    expect((await refusedUpgrade(`/api/ws?token=${user.accessToken}`)).status).toBe(429);
    // Anonymous clients from the same address are still held to their own two.
    expect((await sse()).status).toBe(429);
  });

  it('holds no place for a refused request', async () => {
    for (let i = 0; i < 3; i++) {
      expect((await sse('/api/sse?collections=nope')).status).toBe(400);
      expect((await sse('/api/sse?collections=secrets')).status).toBe(401);
      expect((await refusedUpgrade('/api/ws?token=nonsense')).status).toBe(401);
    }
    expect((await sse()).status).toBe(200);
    await ws();
  });
});
