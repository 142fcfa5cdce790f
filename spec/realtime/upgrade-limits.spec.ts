// WebSocket upgrades go through the same route middleware as HTTP requests, over real sockets: the rate
// limit (one budget with HTTP, the host's `trust proxy` respected) and the database gate refuse them with
// the same problem+json responses and headers HTTP routes get.
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import request from 'supertest';
import { bearer, registerUser } from '../auth/auth-test-app';
import { createTestApp } from '../helpers/create-test-app';
import { quietFor } from '../helpers/eventually';
import { openTestConnection } from '../helpers/test-db';
import { type WsClient, closeServer, listen, openWs } from './realtime-clients';
import { REALTIME_COLLECTIONS, type RealtimeTestApp, createRealtimeTestApp } from './realtime-test-app';

jest.setTimeout(30_000);

interface Refusal {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

const open: WsClient[] = [];
const apps: RealtimeTestApp[] = [];
afterEach(async () => {
  for (const client of open.splice(0)) client.close();
  for (const t of apps.splice(0)) {
    expect(t.hostErrors).toEqual([]);
    await t.close();
  }
});

async function app(...args: Parameters<typeof createRealtimeTestApp>): Promise<RealtimeTestApp> {
  const t = await createRealtimeTestApp(...args);
  apps.push(t);
  return t;
}

/** Opens a WebSocket; resolves with the client, or with the refusal (status, headers, body). */
async function upgrade(t: RealtimeTestApp, path = '/api/ws', headers: Record<string, string> = {}): Promise<WsClient | Refusal> {
  try {
    const client = await openWs(t.server, path, { headers });
    open.push(client);
    return client;
  } catch (error) {
    if (typeof (error as Refusal).status !== 'number') throw error;
    return error as Refusal;
  }
}

const refused = (outcome: WsClient | Refusal): Refusal => {
  if (!('status' in outcome)) throw new Error('the upgrade was accepted');
  return outcome;
};

describe('the rate limit on WebSocket upgrades', () => {
  it('refuses upgrades past the limit with 429 problem+json, RateLimit headers and Retry-After', async () => {
    const t = await app(true, { extra: { security: { rateLimit: { max: 2 } } } });
    const outcomes = [];
    for (let i = 0; i < 5; i++) outcomes.push(await upgrade(t));
    expect(outcomes.map((o) => ('status' in o ? o.status : 101))).toEqual([101, 101, 429, 429, 429]);
    const { headers, body } = refused(outcomes[2]);
    expect(headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(headers['retry-after']).toMatch(/^\d+$/);
    expect(headers.ratelimit).toMatch(/^"api"; r=0; t=\d+$/);
    expect(headers['ratelimit-policy']).toMatch(/^"api"; q=2; w=60; pk=:[A-Za-z0-9+/=]+:$/);
    expect(JSON.parse(body)).toEqual({
      type: 'urn:content-router:problem:rate_limited',
      title: 'Too many requests',
      status: 429,
      detail: 'Too many requests, please try again later.',
      code: 'rate_limited',
    });
    // The sockets that were let in still work.
    const first = outcomes[0] as WsClient;
    first.send({ type: 'subscribe', collections: ['open'] });
    expect(await first.next((m) => m.type === 'subscribed')).toEqual({ type: 'subscribed', collections: ['open'] });
  });

  it('counts upgrades and HTTP requests against one budget per client', async () => {
    const t = await app(true, { extra: { security: { rateLimit: { max: 3 } } } });
    expect((await request(t.server).get('/api/open')).status).toBe(200);
    expect('status' in (await upgrade(t))).toBe(false);
    expect('status' in (await upgrade(t))).toBe(false);
    expect(refused(await upgrade(t)).status).toBe(429);
    const res = await request(t.server).get('/api/open');
    expect(res.status).toBe(429);
    expect(res.headers.ratelimit).toMatch(/^"api"; r=0;/);
  });

  it("tells clients apart by the host's trust proxy setting, as for HTTP requests", async () => {
    const t = await app(true, { extra: { security: { rateLimit: { max: 1 } } } });
    t.app.set('trust proxy', 1);
    const from = (ip: string) => ({ 'X-Forwarded-For': ip });
    expect('status' in (await upgrade(t, '/api/ws', from('203.0.113.1')))).toBe(false);
    expect('status' in (await upgrade(t, '/api/ws', from('203.0.113.2')))).toBe(false);
    expect(refused(await upgrade(t, '/api/ws', from('203.0.113.1'))).status).toBe(429);
    // The same budget over HTTP.
    expect((await request(t.server).get('/api/open').set(from('203.0.113.2'))).status).toBe(429);
    expect((await request(t.server).get('/api/open').set(from('203.0.113.3'))).status).toBe(200);
  });

  it('refuses an over-limit upgrade before checking its credential', async () => {
    const t = await app(true, { extra: { security: { rateLimit: { max: 1 } } } });
    expect('status' in (await upgrade(t))).toBe(false);
    expect(refused(await upgrade(t, '/api/ws', { Authorization: 'Bearer nonsense' })).status).toBe(429);
  });

  it("leaves the host's own upgrades alone and uncounted", async () => {
    const t = await app(true, { extra: { security: { rateLimit: { max: 1 } } } });
    const hostWss = new WebSocketServer({ noServer: true });
    const onUpgrade = (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
      if (req.url === '/api/host-ws') hostWss.handleUpgrade(req, socket, head, (s) => s.send(JSON.stringify({ type: 'host-hello' })));
    };
    t.server.on('upgrade', onUpgrade);
    try {
      for (let i = 0; i < 3; i++) {
        const host = await openWs(t.server, '/api/host-ws');
        expect(await host.next((m) => m.type === 'host-hello')).toEqual({ type: 'host-hello' });
        host.close();
      }
      expect('status' in (await upgrade(t))).toBe(false);
      expect(refused(await upgrade(t)).status).toBe(429);
    } finally {
      t.server.off('upgrade', onUpgrade);
      hostWss.close();
    }
  });

  it('gives an authenticated client the same budget as over HTTP (keyed by IP by default)', async () => {
    const t = await app(true, { extra: { security: { rateLimit: { max: 4 } } } });
    const user = await registerUser(t); // 1
    expect((await request(t.server).get('/api/open').set(...bearer(user.accessToken))).status).toBe(200); // 2
    expect('status' in (await upgrade(t, `/api/ws?token=${user.accessToken}`))).toBe(false); // 3
    expect('status' in (await upgrade(t))).toBe(false); // 4
    expect(refused(await upgrade(t, '/api/ws', Object.fromEntries([bearer(user.accessToken)]))).status).toBe(429);
  });
});

describe('the database gate on WebSocket upgrades', () => {
  it('refuses an upgrade with 503 problem+json and Retry-After while the database is down', async () => {
    const connection = await openTestConnection();
    const t = await createTestApp({ realtime: true, collections: REALTIME_COLLECTIONS }, { connection });
    const server = await listen(t.app);
    t.api.attach(server);
    try {
      const up = await openWs(server, '/api/ws');
      up.close();
      await connection.close();
      const outcome = await openWs(server, '/api/ws').catch((error: Refusal) => error);
      const { status, headers, body } = refused(outcome as WsClient | Refusal);
      expect(status).toBe(503);
      expect(headers['retry-after']).toBe('5');
      expect(headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(JSON.parse(body)).toMatchObject({ status: 503, code: 'service_unavailable', detail: expect.stringContaining('not processed') });
      expect(t.hostErrors).toEqual([]);
    } finally {
      await t.api.close();
      await closeServer(server);
    }
  });
});

describe('the request deadline and WebSockets', () => {
  it('never answers an open WebSocket with a deadline 503: the socket outlives db.requestTimeoutMS and works', async () => {
    const t = await app(true, { requestTimeoutMS: 150 });
    const client = await upgrade(t);
    if ('status' in client) throw new Error(`upgrade refused: ${client.status}`);
    await quietFor(500); // past the 150 ms deadline: no 503 may end the socket
    client.send({ type: 'subscribe', collections: ['open'] });
    expect(await client.next((m) => m.type === 'subscribed')).toEqual({ type: 'subscribed', collections: ['open'] });
    expect(t.logs.filter((line) => /did not answer|deadline/.test(line))).toEqual([]);
  });
});
