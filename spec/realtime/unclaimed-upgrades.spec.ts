// Upgrade requests no route of the router takes, over raw sockets once api.attach(server) has run: with no
// other upgrade listener they are served as the plain HTTP requests they also are (through the host app, so
// its routes and the router's rate limit apply), a host listener added before or after attach gets them,
// and no socket is ever left open. Also the recipe of docs/realtime.md for a host listener that destroys
// the upgrades it does not know.
import { once } from 'node:events';
import http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { type ContentRouter, contentRouter } from '../../lib';
import { createAuthTestApp } from '../auth/auth-test-app';
import { quietFor, until } from '../helpers/eventually';
import { describeIf } from '../helpers/test-db';
import { type WsClient, closeServer, listen, openWs } from './realtime-clients';
import { type RealtimeTestApp, REALTIME_COLLECTIONS, createRealtimeTestApp } from './realtime-test-app';

jest.setTimeout(30_000);


/** What `curl --http2 http://host/...` sends: HTTP/1.1 asking to switch to h2c. */
const H2C = 'Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n';
const WEBSOCKET = 'Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n';

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Reads `count` HTTP answers off `socket` (bodies by Content-Length), in order; rejects if they do not all come within `ms`. */
function readAnswers(socket: net.Socket, count: number, ms: number): Promise<RawAnswer[]> {
  return new Promise((resolve, reject) => {
    const answers: RawAnswer[] = [];
    let buffer = Buffer.alloc(0);
    const timer = setTimeout(
      () => fail(new Error(`${answers.length} of ${count} answers within ${ms} ms; then received: ${JSON.stringify(buffer.toString('latin1'))}`)),
      ms,
    );
    const fail = (error: Error) => {
      clearTimeout(timer);
      socket.off('data', onData);
      reject(error);
    };
    const onData = (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        const end = buffer.indexOf('\r\n\r\n');
        if (end < 0) return;
        const [statusLine, ...lines] = buffer.subarray(0, end).toString('latin1').split('\r\n');
        const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
        const length = Number(headers['content-length'] ?? 0);
        if (buffer.length < end + 4 + length) return;
        answers.push({ status: Number(statusLine.split(' ')[1]), headers, body: buffer.subarray(end + 4, end + 4 + length).toString('utf8') });
        buffer = buffer.subarray(end + 4 + length);
        if (answers.length === count) {
          clearTimeout(timer);
          socket.off('data', onData);
          return resolve(answers);
        }
      }
    };
    socket.on('data', onData);
  });
}

/** Reads one HTTP answer off `socket`; rejects if none comes within `ms`. */
async function readAnswer(socket: net.Socket, ms: number): Promise<RawAnswer> {
  const [answer] = await readAnswers(socket, 1, ms);
  return answer;
}

/** Resolves when `socket` is closed (by the server, once the client's side is ended); rejects after `ms`. */
function closedWithin(socket: net.Socket, ms: number): Promise<void> {
  if (socket.destroyed) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server left the socket open for ${ms} ms`)), ms);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

function connect(server: http.Server): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1', () => resolve(socket));
    socket.on('error', reject);
  });
}

/** Sends one raw request, reads the answer, ends the client's side and waits for the server to close the socket. */
async function exchange(server: http.Server, head: string, body = ''): Promise<RawAnswer> {
  const socket = await connect(server);
  try {
    socket.write(`${head}\r\n${body}`);
    const answer = await readAnswer(socket, 3000);
    socket.end();
    await closedWithin(socket, 3000);
    return answer;
  } finally {
    socket.destroy();
  }
}

/** Waits until the server holds no socket any more. */
async function expectNoConnections(server: http.Server): Promise<void> {
  const count = () => new Promise<number>((resolve, reject) => server.getConnections((error, n) => (error ? reject(error) : resolve(n))));
  await until(async () => (await count()) === 0, 3000, 'no socket left');
}

const request = (method: string, path: string, headers: string) => `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${headers}`;

const apps: RealtimeTestApp[] = [];
const sockets: WsClient[] = [];
afterEach(async () => {
  for (const client of sockets.splice(0)) client.close();
  for (const t of apps.splice(0)) {
    expect(t.hostErrors).toEqual([]);
    await t.close();
  }
});

/** The realtime test app with a host route of its own, `GET /health`. */
async function app(...args: Parameters<typeof createRealtimeTestApp>): Promise<RealtimeTestApp> {
  const t = await createRealtimeTestApp(...args);
  apps.push(t);
  t.app.get('/health', (_req, res) => void res.json({ ok: true }));
  return t;
}

describe('an upgrade no route of the router takes, with no other upgrade listener', () => {
  it('is served as the plain request it is: an h2c upgrade of a collection path gets the list', async () => {
    const t = await app();
    await t.connection.collection('open').insertOne({ name: 'listed', createdAt: new Date(), updatedAt: new Date() });
    const answer = await exchange(t.server, request('GET', '/api/open', H2C));
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(answer.body).data).toEqual([expect.objectContaining({ name: 'listed' })]);
    await expectNoConnections(t.server);
  });

  it('passes a body sent with the upgrade to the route: a POST creates its record', async () => {
    const t = await app();
    const json = JSON.stringify({ name: 'sent with h2c' });
    const answer = await exchange(t.server, request('POST', '/api/open', `${H2C}Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(json)}\r\n`), json);
    expect(answer.status).toBe(201);
    expect(JSON.parse(answer.body)).toMatchObject({ name: 'sent with h2c' });
    expect(await t.connection.collection('open').countDocuments({ name: 'sent with h2c' })).toBe(1);
    await expectNoConnections(t.server);
  });

  it.each([
    ['a path the router does not serve', '/api/nope', WEBSOCKET, 404],
    ['an upper-case prefix (Express routes it to the router, where a plain GET of /ws is a 426)', '/API/ws', WEBSOCKET, 426],
    ['a sub-path of the WebSocket route', '/api/ws/x', WEBSOCKET, 404],
    ['the WebSocket path with a trailing slash (a plain GET of it is a 426)', '/api/ws/', WEBSOCKET, 426],
    ['the WebSocket path with an empty segment', '/api//ws', WEBSOCKET, 426],
    ["a host route (h2c)", '/health', H2C, 200],
    ['a host path that does not exist', '/elsewhere', H2C, 404],
  ])('answers an upgrade of %s as the host app answers it', async (_name, path, headers, status) => {
    const t = await app();
    const answer = await exchange(t.server, request('GET', path, headers));
    expect(answer.status).toBe(status);
    if (path === '/health') expect(JSON.parse(answer.body)).toEqual({ ok: true });
    await expectNoConnections(t.server);
  });

  it('answers a WebSocket upgrade of another method than GET as the plain request: a 405, holding no connection place', async () => {
    const t = await app({ maxConnectionsPerClient: 1 });
    const client = await openWs(t.server, '/api/ws');
    sockets.push(client);
    const answer = await exchange(t.server, request('POST', '/api/ws', `${WEBSOCKET}Content-Length: 0\r\n`));
    expect(answer.status).toBe(405);
    expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(answer.headers.allow).toBe('GET, HEAD');
  });

  it('counts such requests against the rate limit like any request', async () => {
    const t = await app(true, { extra: { security: { rateLimit: { max: 1 } } } });
    expect((await exchange(t.server, request('GET', '/api/open', H2C))).status).toBe(200);
    const refused = await exchange(t.server, request('GET', '/api/open', H2C));
    expect(refused.status).toBe(429);
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    await expectNoConnections(t.server);
  });

  it('closes the socket of a client that half-closed right after its request', async () => {
    const t = await app();
    for (const path of ['/api/nope', '/api/open']) {
      const socket = await connect(t.server);
      socket.on('data', () => undefined);
      socket.end(`${request('GET', path, H2C)}\r\n`);
      await closedWithin(socket, 3000);
    }
    await expectNoConnections(t.server);
  });

  it('still takes its own WebSocket upgrades', async () => {
    const t = await app();
    const client = await openWs(t.server, '/api/ws');
    sockets.push(client);
    client.send({ type: 'subscribe', collections: ['open'] });
    expect(await client.next((m) => m.type === 'subscribed')).toEqual({ type: 'subscribed', collections: ['open'] });
  });
});

describe('an upgrade no route of the router takes, pipelined behind requests still being answered', () => {
  /**
   * The app with `GET /slow?ms=` (answers after that long, closing the connection with `close=1`) and
   * `GET /counted` (counts the requests it ran).
   */
  async function pipelineApp(): Promise<RealtimeTestApp & { ran: () => number }> {
    const t = await app();
    let ran = 0;
    t.app.get('/slow', (req, res) => {
      if (req.query.close) res.set('Connection', 'close');
      setTimeout(() => res.json({ slow: Number(req.query.ms) }), Number(req.query.ms));
    });
    t.app.get('/counted', (_req, res) => void res.json({ ran: ++ran }));
    return Object.assign(t, { ran: () => ran });
  }
  const UPGRADE_FOO = 'Connection: Upgrade\r\nUpgrade: foo\r\n';

  it('is answered after them, every answer in order, on the same connection', async () => {
    const t = await pipelineApp();
    const socket = await connect(t.server);
    try {
      socket.write(`${request('GET', '/slow?ms=400', '')}\r\n${request('GET', '/counted', UPGRADE_FOO)}\r\n`);
      const [slow, counted] = await readAnswers(socket, 2, 3000);
      expect([slow.status, JSON.parse(slow.body)]).toEqual([200, { slow: 400 }]);
      expect([counted.status, JSON.parse(counted.body)]).toEqual([200, { ran: 1 }]);
      // The connection goes on: a plain request after them is answered too.
      socket.write(`${request('GET', '/health', '')}\r\n`);
      expect((await readAnswer(socket, 3000)).status).toBe(200);
      socket.end();
      await closedWithin(socket, 3000);
    } finally {
      socket.destroy();
    }
    await expectNoConnections(t.server);
  });

  it('waits for every answer still owed, and a second such upgrade after it too', async () => {
    const t = await pipelineApp();
    const socket = await connect(t.server);
    try {
      socket.write(
        `${request('GET', '/slow?ms=400', '')}\r\n${request('GET', '/slow?ms=100', '')}\r\n` +
          `${request('GET', '/counted', UPGRADE_FOO)}\r\n${request('GET', '/slow?ms=200', '')}\r\n${request('GET', '/counted', H2C)}\r\n`,
      );
      const answers = await readAnswers(socket, 5, 5000);
      expect(answers.map((answer) => JSON.parse(answer.body))).toEqual([{ slow: 400 }, { slow: 100 }, { ran: 1 }, { slow: 200 }, { ran: 2 }]);
      socket.end();
      await closedWithin(socket, 3000);
    } finally {
      socket.destroy();
    }
    await expectNoConnections(t.server);
  });

  it('answers the requests sent right behind it in the same packet, with no answer owed before it', async () => {
    const t = await pipelineApp();
    const socket = await connect(t.server);
    try {
      socket.write(`${request('GET', '/counted', UPGRADE_FOO)}\r\n${request('GET', '/health', '')}\r\n${request('POST', '/counted', `${H2C}Content-Length: 0\r\n`)}\r\n`);
      const answers = await readAnswers(socket, 3, 3000);
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 404]);
      expect(JSON.parse(answers[0].body)).toEqual({ ran: 1 });
      socket.end();
      await closedWithin(socket, 3000);
    } finally {
      socket.destroy();
    }
    await expectNoConnections(t.server);
  });

  it("is not cut short by the keep-alive timeout the answer before it left on the connection", async () => {
    const t = await pipelineApp();
    // Node closes an idle keep-alive connection 1 s after this: the upgrade's own request takes longer.
    t.server.keepAliveTimeout = 100;
    const socket = await connect(t.server);
    try {
      socket.write(`${request('GET', '/slow?ms=100', '')}\r\n${request('GET', '/slow?ms=1500', UPGRADE_FOO)}\r\n`);
      const answers = await readAnswers(socket, 2, 4000);
      expect(answers.map((answer) => JSON.parse(answer.body))).toEqual([{ slow: 100 }, { slow: 1500 }]);
    } finally {
      socket.destroy();
    }
  });

  it('is not run when the server closes the connection after the answer before it', async () => {
    const t = await pipelineApp();
    const socket = await connect(t.server);
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    socket.write(`${request('GET', '/slow?ms=300&close=1', '')}\r\n${request('GET', '/counted', UPGRADE_FOO)}\r\n`);
    await closedWithin(socket, 3000);
    expect(received.match(/^HTTP\/1\.1 \d+/gm)).toEqual(['HTTP/1.1 200']);
    expect(t.ran()).toBe(0);
    await expectNoConnections(t.server);
  });

  it('is not run when the client goes away before the answers it waits for', async () => {
    const t = await pipelineApp();
    const socket = await connect(t.server);
    // Gone once the server has the first request, while the upgrade behind it waits for that answer.
    const first = once(t.server, 'request');
    socket.write(`${request('GET', '/slow?ms=300', '')}\r\n${request('GET', '/counted', UPGRADE_FOO)}\r\n`);
    await first;
    socket.resetAndDestroy();
    await quietFor(400); // past the slow answer: the upgrade must still not run
    expect(t.ran()).toBe(0);
    await expectNoConnections(t.server);
  });
});

describe("an upgrade no route of the router takes, with the host's own upgrade listener", () => {
  /** A host listener noting the URL of every upgrade, answering all but the router's with a 418. */
  function hostListener(seen: string[]) {
    return (req: http.IncomingMessage, socket: Duplex) => {
      seen.push(req.url ?? '');
      if (req.url === '/api/ws') return;
      socket.end("HTTP/1.1 418 I'm a teapot\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    };
  }

  it('goes to a listener the host added after attach, and the router writes nothing on it', async () => {
    const t = await app();
    const seen: string[] = [];
    t.server.on('upgrade', hostListener(seen));
    expect((await exchange(t.server, request('GET', '/api/nope', WEBSOCKET))).status).toBe(418);
    expect((await exchange(t.server, request('GET', '/api/open', H2C))).status).toBe(418);
    // The router's own upgrade reaches the host's listener with its URL as sent (not as the router sees it, /ws).
    const client = await openWs(t.server, '/api/ws');
    client.close();
    expect(seen).toEqual(['/api/nope', '/api/open', '/api/ws']);
    await expectNoConnections(t.server);
  });

  it('goes to a listener the host added before attach', async () => {
    const t = await createAuthTestApp({ collections: REALTIME_COLLECTIONS, extra: { realtime: true } });
    const server = await listen(t.app);
    try {
      const seen: string[] = [];
      server.on('upgrade', hostListener(seen));
      t.api.attach(server);
      expect((await exchange(server, request('GET', '/api/ws/x', WEBSOCKET))).status).toBe(418);
      const client = await openWs(server, '/api/ws');
      client.close();
      expect(seen).toEqual(['/api/ws/x', '/api/ws']);
      await expectNoConnections(server);
    } finally {
      await t.close();
      await closeServer(server);
    }
  });
});

/** Node 22.21, 24.9 and later let a server decide which upgrades it takes (`shouldUpgradeCallback`). */
const NODE_HAS_SHOULD_UPGRADE = typeof (http.createServer() as http.Server & { shouldUpgradeCallback?: unknown }).shouldUpgradeCallback === 'function';

describeIf(NODE_HAS_SHOULD_UPGRADE, 'this Node has no shouldUpgradeCallback')("with the host's own shouldUpgradeCallback", () => {
  type WithCallback = http.Server & { shouldUpgradeCallback: (req: http.IncomingMessage) => boolean };

  /** The test app with `GET /health`, its server's shouldUpgradeCallback set to `decide` before attach, and `listener` if given. */
  async function appWithCallback(decide: (req: http.IncomingMessage) => boolean, listener?: (req: http.IncomingMessage, socket: Duplex) => void) {
    const t = await createAuthTestApp({ collections: REALTIME_COLLECTIONS, extra: { realtime: true } });
    t.app.get('/health', (_req, res) => void res.json({ ok: true }));
    const server = await listen(t.app);
    (server as WithCallback).shouldUpgradeCallback = decide;
    if (listener) server.on('upgrade', listener);
    t.api.attach(server);
    return {
      server,
      async close() {
        await t.close();
        await closeServer(server);
      },
    };
  }

  it("takes the router's upgrades even when it declines every upgrade, and serves the rest in order, requests sent behind them included", async () => {
    const t = await appWithCallback(() => false);
    try {
      const client = await openWs(t.server, '/api/ws');
      client.send({ type: 'subscribe', collections: ['open'] });
      expect(await client.next((m) => m.type === 'subscribed')).toEqual({ type: 'subscribed', collections: ['open'] });
      client.close();
      const socket = await connect(t.server);
      try {
        socket.write(`${request('GET', '/nope', H2C)}\r\n${request('GET', '/health', '')}\r\n`);
        expect((await readAnswers(socket, 2, 3000)).map((answer) => answer.status)).toEqual([404, 200]);
        socket.end();
        await closedWithin(socket, 3000);
      } finally {
        socket.destroy();
      }
      await expectNoConnections(t.server);
    } finally {
      await t.close();
    }
  });

  it('decides the upgrades no router takes when the host has an upgrade listener of its own', async () => {
    const seen: string[] = [];
    const teapot = (req: http.IncomingMessage, socket: Duplex) => {
      seen.push(req.url ?? '');
      if (req.url === '/api/ws') return;
      socket.end("HTTP/1.1 418 I'm a teapot\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    };
    const t = await appWithCallback((req) => req.url === '/teapot', teapot);
    try {
      expect((await exchange(t.server, request('GET', '/teapot', WEBSOCKET))).status).toBe(418);
      // Declined by the host's callback: Node serves it as a plain request, and no upgrade listener sees it.
      expect((await exchange(t.server, request('GET', '/health', H2C))).status).toBe(200);
      const client = await openWs(t.server, '/api/ws');
      client.close();
      expect(seen).toEqual(['/teapot', '/api/ws']);
      await expectNoConnections(t.server);
    } finally {
      await t.close();
    }
  });
});

describe("beside a host listener that destroys the upgrades it does not know (the `ws` README's pattern)", () => {
  /** A host WebSocket server at /chat, whose listener destroys every other upgrade, except the router's when `spare`. */
  function destroyingListener(chat: WebSocketServer, spare: boolean) {
    return (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
      const { pathname } = new URL(req.url ?? '/', 'http://localhost');
      if (pathname === '/chat') chat.handleUpgrade(req, socket, head, (ws) => chat.emit('connection', ws, req));
      // The recipe: exactly the upgrades the router takes, GET <prefix>/ws, are left to it.
      else if (spare && req.method === 'GET' && req.url?.split('?', 1)[0] === '/api/ws') return;
      else socket.destroy();
    };
  }

  /** Sends an upgrade request and resolves with what came back before the server closed the socket. */
  async function closedAfter(server: http.Server, head: string): Promise<string> {
    const socket = await connect(server);
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    socket.write(`${head}\r\n`);
    await closedWithin(socket, 3000);
    return received;
  }

  const chats: WebSocketServer[] = [];
  afterEach(() => {
    for (const chat of chats.splice(0)) chat.close();
  });
  function chatServer(): WebSocketServer {
    const chat = new WebSocketServer({ noServer: true });
    chat.on('connection', (ws) => ws.send(JSON.stringify({ type: 'chat' })));
    chats.push(chat);
    return chat;
  }

  it.each(['after', 'before'])("keeps the router's WebSocket with the recipe, the listener added %s attach", async (order) => {
    const t = await createAuthTestApp({ collections: REALTIME_COLLECTIONS, extra: { realtime: true } });
    const server = await listen(t.app);
    try {
      if (order === 'before') server.on('upgrade', destroyingListener(chatServer(), true));
      t.api.attach(server);
      if (order === 'after') server.on('upgrade', destroyingListener(chatServer(), true));
      const router = await openWs(server, '/api/ws');
      router.send({ type: 'subscribe', collections: ['open'] });
      expect(await router.next((m) => m.type === 'subscribed')).toEqual({ type: 'subscribed', collections: ['open'] });
      const chat = await openWs(server, '/chat');
      expect(await chat.next((m) => m.type === 'chat')).toEqual({ type: 'chat' });
      router.close();
      chat.close();
      // Everything else is the host's to destroy, the router's near misses included: nothing hangs.
      for (const [method, path] of [['GET', '/elsewhere'], ['POST', '/api/ws'], ['GET', '/api/ws/'], ['GET', '/api//ws'], ['GET', '/api/nope']]) {
        expect(await closedAfter(server, request(method, path, WEBSOCKET))).toBe('');
      }
      await expectNoConnections(server);
    } finally {
      await t.close();
      await closeServer(server);
    }
  });

  it("refuses the router's WebSocket too without the recipe's check", async () => {
    const t = await app();
    t.server.on('upgrade', destroyingListener(chatServer(), false));
    await expect(openWs(t.server, '/api/ws')).rejects.toThrow(/socket hang up/);
  });
});

describe('two routers attached to one server', () => {
  it("each takes its own WebSocket upgrades, and an upgrade neither takes is answered once, as a plain request", async () => {
    const t = await app();
    const second: ContentRouter = contentRouter({
      db: { connection: t.connection },
      core: { api: { prefix: '/v2' } },
      realtime: true,
      logger: { error: () => undefined, warn: () => undefined, info: () => undefined },
      collections: [{ slug: 'v2notes', fields: { text: { type: 'text' } }, access: { read: () => true } }],
    });
    try {
      await second.ready;
      t.app.use('/v2', second);
      second.attach(t.server);
      for (const path of ['/api/ws', '/v2/ws']) {
        const client = await openWs(t.server, path);
        sockets.push(client);
      }
      const answer = await exchange(t.server, request('GET', '/v2/v2notes', H2C));
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body).data).toEqual([]);
      // Exactly one answer: a second one on the same socket would show as bytes after the first.
      const socket = await connect(t.server);
      let received = '';
      socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
      socket.write(`${request('GET', '/nope', H2C)}Connection: close\r\n\r\n`);
      await closedWithin(socket, 3000);
      expect(received.match(/^HTTP\/1\.1 /gm)).toEqual(['HTTP/1.1 ']);
      expect(received).toMatch(/^HTTP\/1\.1 404 /);
    } finally {
      for (const client of sockets.splice(0)) client.close();
      await second.close();
    }
  });
});
