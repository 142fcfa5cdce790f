// What an idle WebSocket client costs the server's heap: measured against a bare `ws` server in the same
// process, with the clients in a child process so that only the servers' side is counted. And what a
// connection must not keep alive: the response object its upgrade was dressed with.
import { type ChildProcess, spawn } from 'node:child_process';
import http, { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { WebSocketServer } from 'ws';
import { quietFor, until } from '../helpers/eventually';
import { openWs } from './realtime-clients';
import { type RealtimeTestApp, createRealtimeTestApp } from './realtime-test-app';

jest.setTimeout(60_000);

// A full collection on demand, so heap figures count only what is still referenced.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Enough clients that the heap's own noise (a few hundred KB) is a small part of each client's figure. */
const CLIENTS = 500;

/** A child process holding `count` WebSocket clients subscribed to `collection` at `url`, until it is killed. */
async function clientsIn(url: string, count: number, collection: string): Promise<ChildProcess> {
  const script = `
    const WebSocket = require(${JSON.stringify(require.resolve('ws'))});
    const open = () => new Promise((resolve, reject) => {
      const socket = new WebSocket(${JSON.stringify(url)});
      socket.on('error', reject);
      socket.on('open', () => socket.send(JSON.stringify({ type: 'subscribe', collections: [${JSON.stringify(collection)}] })));
      socket.on('message', (data) => JSON.parse(String(data)).type === 'subscribed' && resolve(socket));
    });
    (async () => {
      for (let i = 0; i < ${count}; i += 50) await Promise.all(Array.from({ length: Math.min(50, ${count} - i) }, open));
      process.send('ready');
    })().catch((error) => { console.error(error); process.exit(1); });
  `;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`the client process exited (${code})`)));
  });
  return child;
}

async function heapAfterGc(): Promise<number> {
  // Let pending callbacks settle (a measurement's quiet time, nothing to wait for), then collect twice (the
  // first may leave weakly held objects behind).
  await quietFor(200);
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/** Heap bytes per client of CLIENTS clients connected from another process, after a warm-up round. */
async function heapPerClient(url: string, collection: string, connected: () => number): Promise<number> {
  const warm = await clientsIn(url, 50, collection);
  warm.kill();
  await until(() => connected() === 0, 20_000, 'the clients (dis)connected');
  const before = await heapAfterGc();
  const clients = await clientsIn(url, CLIENTS, collection);
  try {
    await until(() => connected() === CLIENTS, 20_000, 'the clients (dis)connected');
    return ((await heapAfterGc()) - before) / CLIENTS;
  } finally {
    clients.kill();
    await until(() => connected() === 0, 20_000, 'the clients (dis)connected');
  }
}

/** The least a server can do for the same protocol: accept, acknowledge the subscription, keep the socket. */
async function bareWsServer(): Promise<{ url: string; connected: () => number; close(): Promise<void> }> {
  const subscribed = new Set<unknown>();
  const wss = new WebSocketServer({ noServer: true });
  const server = http.createServer();
  server.on('upgrade', (req, socket, head) => {
    wss.handleUpgrade(req, socket, head, (ws) => {
      ws.on('message', () => {
        subscribed.add(ws);
        ws.send(JSON.stringify({ type: 'subscribed', collections: ['open'] }));
      });
      ws.on('close', () => subscribed.delete(ws));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}/api/ws`,
    connected: () => subscribed.size,
    close: () => new Promise((resolve) => {
      wss.close();
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

let t: RealtimeTestApp;

beforeAll(async () => {
  // Every test client comes from 127.0.0.1: lift the per-client connection cap above them.
  t = await createRealtimeTestApp({ maxConnectionsPerClient: 10_000 });
});
afterAll(() => t.close());

describe('realtime client memory', () => {
  // The goal (at most twice a bare client's heap) is measured by bench/realtime.js, in a quiet process. Here,
  // among other suites sharing the machine, the heap's noise moves the ratio by a few tenths: this guards
  // against a per-client cost many times the goal (a connection keeping its request, its buffers), not the goal.
  it('an idle subscribed WebSocket client costs the server no more than three times the heap of a bare ws client', async () => {
    const bare = await bareWsServer();
    let bareBytes: number;
    try {
      bareBytes = await heapPerClient(bare.url, 'open', bare.connected);
    } finally {
      await bare.close();
    }
    const { port } = t.server.address() as AddressInfo;
    const routerBytes = await heapPerClient(`ws://127.0.0.1:${port}/api/ws`, 'open', () => t.api.realtime!.stats().ws);
    expect(routerBytes / bareBytes).toBeLessThanOrEqual(3);
  });

  it('a WebSocket connection does not keep the response its upgrade request was dressed with', async () => {
    // Every response made while the client connects; the upgrade path makes one to answer a refusal with.
    const made: WeakRef<ServerResponse>[] = [];
    const original = ServerResponse.prototype.assignSocket;
    ServerResponse.prototype.assignSocket = function assignSocket(this: ServerResponse, socket) {
      made.push(new WeakRef(this));
      return original.call(this, socket);
    };
    let client;
    try {
      client = await openWs(t.server, '/api/ws');
    } finally {
      ServerResponse.prototype.assignSocket = original;
    }
    try {
      client.send({ type: 'subscribe', collections: ['open'] });
      await client.next((m) => m.type === 'subscribed');
      expect(made.length).toBeGreaterThan(0);
      await heapAfterGc();
      expect(made.filter((ref) => ref.deref() !== undefined)).toHaveLength(0);
    } finally {
      client.close();
    }
  });
});
