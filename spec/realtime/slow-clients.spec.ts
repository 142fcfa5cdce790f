// Clients that stop reading (raw sockets, paused): the router drops them once maxBufferedEvents pile up
// behind a full socket, so memory never grows with them. Heartbeats are slow here, so only the buffer can drop them.
import net from 'node:net';
import request from 'supertest';
import { asUser } from '../helpers/create-test-app';
import { openSse, openWs } from './realtime-clients';
import { type RealtimeTestApp, admin, createRealtimeTestApp } from './realtime-test-app';

// Real sockets and a shared, busy machine: more than jest's default 5 s per test.
jest.setTimeout(30_000);

let t: RealtimeTestApp;

beforeAll(async () => {
  t = await createRealtimeTestApp({ maxBufferedEvents: 5, heartbeatMs: 600_000 });
});
afterAll(() => t.close());

async function connect(): Promise<net.Socket> {
  const socket = net.connect((t.server.address() as net.AddressInfo).port, '127.0.0.1');
  socket.on('error', () => undefined);
  await new Promise((resolve) => socket.once('connect', resolve));
  return socket;
}

/** Waits until the bytes read so far contain `text`. */
function readUntil(socket: net.Socket, text: string): Promise<void> {
  return new Promise((resolve) => {
    let seen = '';
    const onData = (chunk: Buffer) => {
      seen += chunk.toString('latin1');
      if (!seen.includes(text)) return;
      socket.off('data', onData);
      resolve();
    };
    socket.on('data', onData);
  });
}

/** A masked client text frame (payload under 126 bytes). */
function textFrame(text: string): Buffer {
  const payload = Buffer.from(text);
  const mask = Buffer.from([1, 2, 3, 4]);
  return Buffer.concat([Buffer.from([0x81, 0x80 | payload.length]), mask, Buffer.from(payload.map((b, i) => b ^ mask[i % 4]))]);
}

/** Writes large events until the router has dropped every client of `kind` (or gives up). */
async function flood(kind: 'sse' | 'ws'): Promise<void> {
  const big = 'x'.repeat(200_000);
  for (let i = 0; i < 200 && t.api.realtime!.stats()[kind] > 0; i++) {
    expect((await request(t.app).post('/api/open').set(...asUser(admin)).send({ name: big })).status).toBe(201);
  }
}

describe('a client that stops reading', () => {
  it('is dropped over SSE', async () => {
    const socket = await connect();
    const head = readUntil(socket, ': connected');
    socket.write('GET /api/sse?collections=open HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n');
    await head;
    socket.pause();
    const closed = new Promise((resolve) => socket.once('close', resolve));
    expect(t.api.realtime!.stats().sse).toBe(1);
    await flood('sse');
    expect(t.api.realtime!.stats().sse).toBe(0);
    socket.resume();
    await closed;
  }, 60_000);

  it('is dropped over WebSocket', async () => {
    const socket = await connect();
    const upgraded = readUntil(socket, '101 Switching Protocols');
    socket.write(
      'GET /api/ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
    );
    await upgraded;
    const acked = readUntil(socket, '"subscribed"');
    socket.write(textFrame(JSON.stringify({ type: 'subscribe', collections: ['open'] })));
    await acked;
    socket.pause();
    const closed = new Promise((resolve) => socket.once('close', resolve));
    expect(t.api.realtime!.stats().ws).toBe(1);
    await flood('ws');
    expect(t.api.realtime!.stats().ws).toBe(0);
    socket.resume();
    await closed;
  }, 60_000);

  it('is not confused with a reading client that gets a burst larger than maxBufferedEvents', async () => {
    const stream = await openSse(t.server, '/api/sse?collections=open');
    const socket = await openWs(t.server, '/api/ws');
    socket.send({ type: 'subscribe', collections: ['open'] });
    await socket.next((m) => m.type === 'subscribed');
    const res = await request(t.app).post('/api/open').set(...asUser(admin)).send({ data: Array.from({ length: 20 }, (_, i) => ({ name: `burst ${i}` })) });
    expect(res.status).toBe(201);
    // A marker written after the burst: its event comes after every event of the burst (the records of a
    // batch are stored concurrently, so the last in the answer need not be the last announced).
    const marker = await request(t.app).post('/api/open').set(...asUser(admin)).send({ name: 'marker' });
    expect(marker.status).toBe(201);
    const markerId = marker.body.id as string;
    await stream.next((e) => e.data.includes(markerId));
    await socket.next((m) => m.docId === markerId);
    const ids = (res.body.data as Array<{ id: string }>).map((r) => r.id);
    // Only this burst's events are counted: the earlier tests' floods may still be announced as this one starts.
    const burst = new Set(ids);
    const streamed = stream.events.items.map((e) => JSON.parse(e.data) as { type: string; docId: string }).filter((e) => e.type === 'create' && burst.has(e.docId));
    expect(streamed.map((e) => e.docId).sort()).toEqual([...ids].sort());
    expect(socket.messages.items.filter((m) => m.type === 'create' && burst.has(m.docId as string)).map((m) => m.docId).sort()).toEqual([...ids].sort());
    stream.close();
    socket.close();
  });
});
