// A client that closes the connection before its request has all arrived is the client's event on every
// route, not only uploads: one debug line, never an error, and the host app keeps serving. A database
// socket's own ECONNRESET, with the client still there, stays a logged 503.
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { type TestApp, createTestApp } from '../helpers/create-test-app';
import { quietFor, until } from '../helpers/eventually';
import { closeServer, listen } from '../realtime/realtime-clients';

let t: TestApp;
let server: http.Server;
const logged: Record<'error' | 'warn' | 'debug', string[]> = { error: [], warn: [], debug: [] };

beforeAll(async () => {
  const record = (level: keyof typeof logged) => (...args: unknown[]) => void logged[level].push(args.map(String).join(' '));
  t = await createTestApp({
    collections: [{ slug: 'notes', access: { create: () => true }, fields: { title: { type: 'text' } } }],
    endpoints: [
      (router) => {
        // Reads the body itself, as plain Express code may: a client gone mid-body rejects the loop with "aborted".
        router.post('/slurp', async (req, res) => {
          let size = 0;
          for await (const chunk of req) size += (chunk as Buffer).length;
          res.json({ size });
        });
        router.get('/db-reset', async () => {
          throw Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET', syscall: 'read' });
        });
      },
    ],
    logger: { error: record('error'), warn: record('warn'), debug: record('debug') },
  });
  server = await listen(t.app);
});
afterAll(async () => {
  await closeServer(server);
  await t.close();
});
beforeEach(() => {
  for (const lines of Object.values(logged)) lines.length = 0;
});
afterEach(() => {
  expect(t.hostErrors).toEqual([]);
});

/** Sends the head of a request promising a 100 kB body, 10 bytes of it, then hangs up. */
async function hangUpMidBody(path: string, contentType: string): Promise<void> {
  const { port } = server.address() as AddressInfo;
  const req = http.request({ host: '127.0.0.1', port, path, method: 'POST', headers: { 'Content-Type': contentType, 'Content-Length': '100000' } });
  req.on('error', () => undefined);
  // Hung up once the router has the request (its head parsed, part of the body sent).
  const received = once(server, 'request');
  req.write('{"title":"');
  await received;
  req.destroy();
}

it('logs a client that hangs up mid-body at debug level only, on a custom endpoint that reads the body', async () => {
  await hangUpMidBody('/api/slurp', 'application/octet-stream');
  await until(() => logged.error.length + logged.debug.length > 0, 15_000, 'a log line');
  expect(logged.error).toEqual([]);
  expect(logged.debug).toEqual(['content-router: POST /api/slurp: the client closed the connection before the request ended.']);
  await request(server).post('/api/slurp').send('abc').expect(200, { size: 3 });
});

it('logs nothing as an error for a JSON body cut off by its client', async () => {
  await hangUpMidBody('/api/notes', 'application/json');
  await quietFor(300); // no error or warning may come
  expect(logged.error).toEqual([]);
  expect(logged.warn).toEqual([]);
  await request(server).post('/api/notes').send({ title: 'still serving' }).expect(201);
});

it('still answers a database socket reset, with the client there, as a logged 503', async () => {
  const res = await request(server).get('/api/db-reset').expect(503);
  expect(res.body.code).toBe('service_unavailable');
  // A database call that failed: the outage log's one warning line, not a client event.
  expect(logged.warn).toHaveLength(1);
  expect(logged.debug).toEqual([]);
});
