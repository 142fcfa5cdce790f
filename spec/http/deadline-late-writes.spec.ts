// The request deadline (db.requestTimeoutMS) over real sockets against a client that controls how long
// its own request takes, and a host whose custom endpoint answers from a callback.
import { once } from 'node:events';
import net from 'node:net';
import type { AddressInfo, Server } from 'node:net';
import request from 'supertest';
import { createTestApp, type TestApp } from '../helpers/create-test-app';
import { quietFor, until } from '../helpers/eventually';

const everyone = { read: () => true, create: () => true, update: () => true, delete: () => true };
/** Long enough for a create on a busy test server once the body is in; the body takes twice as long. */
const SLOW_BODY_DEADLINE_MS = 1000;

describe('a client that sends its body slower than the deadline', () => {
  let t: TestApp;
  let server: Server;
  beforeAll(async () => {
    t = await createTestApp({ collections: [{ slug: 'posts', fields: { title: { type: 'text' } }, access: everyone }] }, { requestTimeoutMS: SLOW_BODY_DEADLINE_MS });
    server = t.app.listen(0);
    await once(server, 'listening');
  });
  afterAll(async () => {
    server?.close();
    await t?.close();
  });

  it('is not told the database timed out, and is never written after its answer', async () => {
    const body = JSON.stringify({ title: 'slow' });
    const socket = net.connect((server.address() as AddressInfo).port, '127.0.0.1');
    await once(socket, 'connect');
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString()));
    // Headers and the first bytes of the body, then nothing until well past the deadline.
    socket.write(`POST /api/posts HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`);
    // (The client's slowness is the scenario: a set time, not a condition.)
    await quietFor(2 * SLOW_BODY_DEADLINE_MS);
    socket.write(body.slice(5));
    await until(() => answer.includes('\r\n\r\n'), 10_000, 'the answer');
    // Nothing may be written after the answer.
    await quietFor(SLOW_BODY_DEADLINE_MS);
    socket.destroy();
    const rows = await t.connection.db!.collection('posts').find().toArray();
    const status = Number(answer.split(' ')[1]);
    // An answer that is not a success must mean nothing was written: here the create ran after the 503.
    expect({ status, written: rows.length }).toEqual(status === 201 ? { status, written: 1 } : { status, written: 0 });
    // The database was never asked anything before the deadline: "the database did not answer" is false.
    expect(answer).not.toContain('database_timeout');
    expect(t.hostErrors).toEqual([]);
  });
});

describe('a custom endpoint (function form) that answers from a callback after the deadline', () => {
  it('does not make the host\'s own res.json throw', async () => {
    const thrown: unknown[] = [];
    let answeredLate = false;
    const t = await createTestApp(
      {
        collections: [{ slug: 'posts', fields: { title: { type: 'text' } }, access: everyone }],
        endpoints: [
          (router) => {
            // Plain Express: answer later, from a timer (an external service, a report being built).
            router.get('/report', (_req, res) => {
              setTimeout(() => {
                try {
                  res.json({ done: true });
                } catch (error) {
                  // Uncaught, as in a real host, this would take the process down.
                  thrown.push(error);
                }
                answeredLate = true;
              }, 400);
            });
          },
        ],
      },
      { requestTimeoutMS: 150 },
    );
    try {
      await request(t.app).get('/api/report');
      await until(() => answeredLate, 5000, "the endpoint's late answer");
      expect(thrown).toEqual([]);
    } finally {
      await t.close();
    }
  });
});
