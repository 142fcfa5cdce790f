// What a keyed request holds in memory, end to end: a request whose client leaves while its
// key is being claimed (the database holding the claim through a TCP proxy) must not be kept alive by the
// router once it has settled (collected requests are seen through WeakRefs and a forced garbage
// collection); a repeated upload read only to be compared must not be read past what the first one held.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import v8 from 'node:v8';
import vm from 'node:vm';
import express, { type Request } from 'express';
import mongoose, { type Connection } from 'mongoose';
import request from 'supertest';
import { IDEMPOTENCY_COLLECTION } from '../../lib/idempotency/idempotency-store';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';
import { until } from '../helpers/eventually';
import { type TcpProxy, parseMongoHost, startTcpProxy } from '../helpers/tcp-proxy';
import { testDbUri, uniqueDbName } from '../helpers/test-db';
import { pngBytes } from '../uploads/upload-helpers';

/** Long enough for a held claim to land within it; the gate's timer holds a response until it ends. */
const DEADLINE_MS = 1500;

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

let proxy: TcpProxy;
let connection: Connection;
let t: TestApp;

beforeAll(async () => {
  proxy = await startTcpProxy(parseMongoHost(testDbUri()));
  connection = await mongoose.createConnection(`mongodb://127.0.0.1:${proxy.port}/?directConnection=true`, { dbName: uniqueDbName('idem-memory') }).asPromise();
  t = await createTestApp(
    {
      collections: [{ slug: 'posts', access: { create: () => true, read: () => true }, fields: { title: { type: 'text', required: true } } }],
      uploads: { maxFileSize: 64 * 1024 },
    },
    { connection, requestTimeoutMS: DEADLINE_MS },
  );
});
afterEach(() => {
  expect(t.hostErrors).toEqual([]);
});
afterAll(async () => {
  await t.close();
  await connection.dropDatabase().catch(() => undefined);
  await connection.close(true);
  await proxy.close();
});

describe('a client that leaves while its key is claimed', () => {
  it('is not kept in memory once its request has settled', async () => {
    const seen: WeakRef<Request>[] = [];
    let closed = 0;
    // The host app in front of the router: it notes each request, and when its client has gone.
    const host = express();
    host.use((req, res, next) => {
      seen.push(new WeakRef(req));
      res.once('close', () => (closed += 1));
      next();
    });
    host.use(t.app);
    const server = host.listen(0, '127.0.0.1');
    try {
      await new Promise((resolve) => server.once('listening', resolve));
      const { port } = server.address() as AddressInfo;
      proxy.hold();
      const body = JSON.stringify({ title: 'x'.repeat(64 * 1024) });
      const gone = http.request({
        host: '127.0.0.1',
        port,
        path: '/api/posts',
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Content-Length': String(body.length), 'Idempotency-Key': `memory-${Date.now()}` },
      });
      gone.on('error', () => undefined);
      gone.end(body);
      await until(() => seen.length === 1);
      // The claim waits on the held database; the client gives up meanwhile.
      await new Promise((resolve) => setTimeout(resolve, 100));
      gone.destroy();
      await until(() => closed === 1);
      proxy.release();
      // The request runs on and settles its key (docs/writes.md): the create is written and its answer kept.
      const rows = () => connection.collection(IDEMPOTENCY_COLLECTION).find().toArray();
      await until(async () => (await rows()).some((row) => row.state === 'done'));
      expect(await connection.collection('posts').countDocuments()).toBe(1);
      // Past the request deadline, whose timer holds the response until it fires.
      await new Promise((resolve) => setTimeout(resolve, DEADLINE_MS + 200));
      for (let i = 0; i < 5; i++) {
        gc();
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(seen[0].deref() === undefined).toBe(true);
    } finally {
      server.close();
    }
  });
});

describe('repeated uploads compared with the kept one', () => {
  it('hold no text field longer than the first one held while they are read', async () => {
    const alice = asUser({ id: '000000000000000000000001' });
    const key = `memory-upload-${Date.now()}`;
    const first = await request(t.app).post('/api/upload').set(...alice).set('Idempotency-Key', key).field('alt', 'a dot').attach('file', pngBytes(), { filename: 'a.png', contentType: 'image/png' });
    expect(first.status).toBe(201);
    // The host app in front of the router notes each request, to see how much of its body was read.
    const received: Request[] = [];
    const host = express();
    host.use((req, _res, next) => {
      received.push(req);
      next();
    });
    host.use(t.app);
    const server = host.listen(0, '127.0.0.1');
    const boundary = 'attack-boundary';
    const CLIENTS = 16;
    const repeats: http.ClientRequest[] = [];
    const measure = async () => {
      for (let i = 0; i < 3; i++) {
        gc();
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const { heapUsed, arrayBuffers } = process.memoryUsage();
      return heapUsed + arrayBuffers;
    };
    try {
      await new Promise((resolve) => server.once('listening', resolve));
      const { port } = server.address() as AddressInfo;
      const before = await measure();
      // Alt texts of almost 1 MiB each (far longer than the first one's, and than the route takes), whose
      // forms do not end: what the router holds of them meanwhile is what many such clients cost it.
      const text = 'x'.repeat(1000 * 1024);
      const answers: Promise<number>[] = [];
      for (let i = 0; i < CLIENTS; i++) {
        const repeat = http.request({
          host: '127.0.0.1',
          port,
          path: '/api/upload',
          method: 'POST',
          headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Transfer-Encoding': 'chunked', 'Idempotency-Key': key, [alice[0]]: alice[1] },
        });
        repeat.on('error', () => undefined);
        answers.push(new Promise((resolve) => repeat.on('response', (res) => (res.resume(), resolve(res.statusCode ?? 0)))));
        repeat.write(`--${boundary}\r\nContent-Disposition: form-data; name="alt"\r\n\r\n`);
        repeat.write(text);
        repeats.push(repeat);
      }
      // Once the router has read every text (busboy handles what it reads at once).
      await until(() => received.length === CLIENTS && received.every((req) => req.socket.bytesRead > text.length));
      // Held, their texts would take 16 MB; client and sockets (one process here) account for a few MB.
      const grown = (await measure()) - before;
      expect(grown).toBeLessThan((CLIENTS * text.length) / 2);
      // And each is refused once its form ends.
      for (const repeat of repeats) repeat.end(`\r\n--${boundary}--\r\n`);
      expect(await Promise.all(answers)).toEqual(Array(CLIENTS).fill(422));
    } finally {
      for (const repeat of repeats) repeat.destroy();
      server.close();
    }
  });
});
