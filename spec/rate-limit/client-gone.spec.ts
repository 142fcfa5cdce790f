// A client that resets its connection right after sending a request: often the server accepts the
// connection after the reset, so the socket never has a peer address and `req.ip` is undefined. Such a
// request is a client event (a debug line at most, never an error), on plain requests, WebSocket upgrades
// and upgrades served as plain requests alike; the rate limit never throws for the missing address, and the
// request still counts (under one placeholder key), so a client cannot go around its limit this way, also
// where the host's keyBy is built on the address.
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import type http from 'node:http';
import { ipKeyGenerator } from 'express-rate-limit';
import request from 'supertest';
import type { RateLimitOptions } from '../../lib';
import { NO_ADDRESS_KEY } from '../../lib/http/client-key';
import { RATE_LIMIT_COLLECTION } from '../../lib/rate-limit/mongo-store';
import { type TestApp, createTestApp } from '../helpers/create-test-app';
import { until } from '../helpers/eventually';
import { closeServer, listen } from '../realtime/realtime-clients';

type Level = 'error' | 'warn' | 'info' | 'debug';

const MAX = 5;
const logged: Record<Level, string[]> = { error: [], warn: [], info: [], debug: [] };
const record = (level: Level) => (...args: unknown[]) => void logged[level].push(args.map((a) => (a instanceof Error ? a.stack : String(a))).join(' '));

interface Served {
  t: TestApp;
  server: http.Server;
}

/** A router limited by `rateLimit` (counts in the database), with realtime, listening with upgrades attached. */
async function serve(rateLimit: RateLimitOptions): Promise<Served> {
  const t = await createTestApp({
    logger: { error: record('error'), warn: record('warn'), info: record('info'), debug: record('debug') },
    warnings: { unindexedSorts: false },
    security: { rateLimit: { max: MAX, store: 'mongo', ...rateLimit } },
    realtime: true,
    collections: [{ slug: 'posts', access: { read: () => true }, fields: { title: { type: 'text' } } }],
    endpoints: [
      (router) => {
        // A GET whose work fails because its client left meanwhile (a write to a gone socket, say).
        router.get('/after-hangup', async (req) => {
          if (!req.socket.destroyed) await new Promise((resolve) => req.socket.once('close', resolve));
          throw new Error('write EPIPE');
        });
      },
    ],
  });
  const server = await listen(t.app);
  t.api.attach(server);
  return { t, server };
}

let plain: Served;
/** keyBy as docs/rate-limit.md suggests for a key that falls back to the address. */
let keyed: Served;

beforeAll(async () => {
  plain = await serve({});
  keyed = await serve({ keyBy: (req) => ipKeyGenerator(req.ip as string) });
});
afterAll(async () => {
  for (const { t, server } of [plain, keyed]) {
    await closeServer(server);
    await t.close();
  }
});
beforeEach(async () => {
  for (const lines of Object.values(logged)) lines.length = 0;
  for (const { t } of [plain, keyed]) await t.connection.collection(RATE_LIMIT_COLLECTION).deleteMany({});
});
afterEach(() => {
  for (const { t } of [plain, keyed]) expect(t.hostErrors).toEqual([]);
});

const port = (server: http.Server) => (server.address() as AddressInfo).port;

/** Opens `n` connections, each sending `head` and resetting at once (RST), as a client flooding the server with aborted requests does. */
function sendAndReset({ server }: Served, n: number, head: string): Promise<void> {
  let closed = 0;
  return new Promise((resolve) => {
    for (let i = 0; i < n; i++) {
      const socket = net.connect(port(server), '127.0.0.1');
      socket.on('error', () => undefined);
      socket.on('connect', () => {
        socket.write(head);
        socket.resetAndDestroy();
      });
      socket.on('close', () => {
        if (++closed === n) resolve();
      });
    }
  });
}

/**
 * Waits until the router is done with the reset requests: some counted, then nothing more counted or logged
 * for a second. Some are still being served (their counts going to the database) well after their sockets
 * closed.
 */
async function settle(served: Served): Promise<void> {
  let last = '';
  let since = Date.now();
  await until(
    async () => {
      const hits = total(await counted(served));
      const now = `${hits}/${Object.values(logged).flat().length}`;
      if (now !== last) [last, since] = [now, Date.now()];
      return hits > 0 && Date.now() - since >= 1000;
    },
    20_000,
    'the reset requests served',
  );
}

/** Every hit the limits counted, by store key. */
async function counted({ t }: Served): Promise<Map<string, number>> {
  const rows = await t.connection.collection<{ _id: string; hits: number }>(RATE_LIMIT_COLLECTION).find().toArray();
  return new Map(rows.map((row) => [row._id, row.hits]));
}

function expectNoFailureLogged(): void {
  expect(logged.error).toEqual([]);
  expect(logged.warn).toEqual([]);
}

const N = 30;
const heads = {
  'a GET': 'GET /api/posts HTTP/1.1\r\nHost: x\r\n\r\n',
  'a WebSocket upgrade': 'GET /api/ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
  'an upgrade the router serves as a plain request (h2c)': 'GET /api/posts HTTP/1.1\r\nHost: x\r\nUpgrade: h2c\r\nConnection: Upgrade, HTTP2-Settings\r\nHTTP2-Settings: AAMAAABkAAQAoAAAAAIAAAAA\r\n\r\n',
};

describe.each(Object.entries(heads))('%s sent and reset at once', (_name, head) => {
  it.each([
    ['without keyBy', () => plain],
    ['with a keyBy built on the address', () => keyed],
  ])('logs no error nor warning, and each request that reached the limit counts there (%s)', async (_how, which) => {
    const served = which();
    await sendAndReset(served, N, head);
    await settle(served);
    expectNoFailureLogged();
    expect(logged.debug.length).toBeLessThanOrEqual(N);
    // Counted under the client's address when the socket had one, else under one placeholder key.
    const rows = await counted(served);
    expect(total(rows)).toBeGreaterThan(0);
    expect([...rows.keys()].filter((key) => key !== 'api:127.0.0.1' && key !== `api:${NO_ADDRESS_KEY}`)).toEqual([]);
  });
});

function total(rows: Map<string, number>): number {
  return [...rows.values()].reduce((sum, n) => sum + n, 0);
}

it('refuses reset requests from a client over its limit without logging, and keeps counting them', async () => {
  for (let i = 0; i < MAX; i++) await request(plain.server).get('/api/posts').expect(200);
  await request(plain.server).get('/api/posts').expect(429);
  await sendAndReset(plain, N, heads['a GET']);
  await settle(plain);
  expectNoFailureLogged();
  // The placeholder key is itself limited: past MAX of them, the rest were refused, not served.
  expect(total(await counted(plain))).toBeGreaterThan(MAX + 1);
});

it('logs a GET that fails because its client left as a client event (debug), not a server error', async () => {
  const socket = net.connect(port(plain.server), '127.0.0.1');
  socket.on('error', () => undefined);
  await new Promise((resolve) => socket.on('connect', resolve));
  // Gone once the router has the request.
  const received = once(plain.server, 'request');
  socket.write('GET /api/after-hangup HTTP/1.1\r\nHost: x\r\n\r\n');
  await received;
  socket.destroy();
  await until(() => logged.debug.length + logged.error.length > 0, 3000, 'a log line');
  expectNoFailureLogged();
  expect(logged.debug).toEqual(['content-router: GET /api/after-hangup: the client closed the connection before the request ended.']);
});
