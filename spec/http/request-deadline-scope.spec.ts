// What the request deadline (db.requestTimeoutMS) covers, as docs/operations.md describes it: "a route that
// needs the database is answered within db.requestTimeoutMS", and "if the route finishes later after all,
// its answer is dropped and the router logs a warning".
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import express from 'express';
import request from 'supertest';
import { createTestApp } from '../helpers/create-test-app';
import { until } from '../helpers/eventually';

const collections = [{ slug: 'things', sortable: [], access: { read: () => true, create: () => true }, fields: { title: { type: 'text' as const } } }];

/** Sends a JSON POST whose body arrives in two parts `pauseMs` apart (a slow client); resolves to the raw answer. */
function slowJsonPost(port: number, path: string, body: string, pauseMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(`POST ${path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`);
      socket.write(body.slice(0, 3));
      setTimeout(() => socket.writable && socket.write(body.slice(3)), pauseMs);
    });
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}

describe('the request deadline (db.requestTimeoutMS): what it covers', () => {
  it('does not count the time a slow client takes to send its JSON body as a database wait', async () => {
    // Long enough for the create on a busy test server once the body is in; the body takes twice as long.
    const t = await createTestApp({ collections }, { requestTimeoutMS: 1000 });
    const server = t.app.listen(0);
    try {
      const { port } = server.address() as AddressInfo;
      const answer = await slowJsonPost(port, '/api/things', JSON.stringify({ title: 'slow client' }), 2000);
      // The database was never asked before the body arrived: a 503 "the database did not answer" is wrong.
      expect(answer).not.toContain('database_timeout');
      expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 201 Created');
      expect(await t.connection.db!.collection('things').countDocuments({ title: 'slow client' })).toBe(1);
    } finally {
      server.close();
      await t.close();
    }
  });

  it('does not count the time a slow client takes to send the JSON body of a function endpoint', async () => {
    const t = await createTestApp(
      {
        collections,
        endpoints: [
          (router) => {
            // The router's own parser, as a host would write it: it finds the body read and passes.
            router.use(express.json());
            router.post('/fn/echo', (req, res) => void res.json({ echo: req.body }));
          },
        ],
      },
      { requestTimeoutMS: 300 },
    );
    const server = t.app.listen(0);
    try {
      const { port } = server.address() as AddressInfo;
      const answer = await slowJsonPost(port, '/api/fn/echo', JSON.stringify({ title: 'slow client' }), 800);
      expect(answer).not.toContain('database_timeout');
      expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
      expect(answer).toContain('{"echo":{"title":"slow client"}}');
      expect(t.hostErrors).toEqual([]);
    } finally {
      server.close();
      await t.close();
    }
  });

  it('logs a debug line when an object-form custom endpoint finishes after its deadline answer', async () => {
    const warnings: string[] = [];
    const debug: string[] = [];
    const logger = {
      error: () => undefined,
      info: () => undefined,
      warn: (message: unknown) => void warnings.push(String(message)),
      debug: (message: unknown) => void debug.push(String(message)),
    };
    const t = await createTestApp(
      {
        collections,
        logger,
        endpoints: [{ path: '/report', method: 'get', handler: () => new Promise((resolve) => setTimeout(() => resolve({ done: true }), 400)) }],
      },
      { requestTimeoutMS: 150 },
    );
    try {
      const res = await request(t.app).get('/api/report');
      expect(res.status).toBe(503);
      expect(res.body.code).toBe('database_timeout');
      await until(() => debug.length > 0, 5000, 'the late answer');
      expect(t.hostErrors).toEqual([]);
      // The deadline's 503 is one warning line; the late answer a debug line.
      expect(warnings).toEqual([expect.stringContaining('GET /api/report: The database did not answer within 0.15 s')]);
      expect(debug).toEqual(['content-router: GET /api/report finished after its deadline answer']);
    } finally {
      await t.close();
    }
  });

  it('holds an object endpoint taking a form to the deadline once its form is read (the parse phase), like one taking JSON', async () => {
    const debug: string[] = [];
    const logger = { error: () => undefined, info: () => undefined, warn: () => undefined, debug: (message: unknown) => void debug.push(String(message)) };
    const t = await createTestApp(
      {
        collections,
        logger,
        endpoints: [
          {
            path: '/scan',
            method: 'post',
            schema: { name: 'ScanForm', body: { properties: { file: { type: 'file' as const, maxSize: 1024 } } } },
            handler: () => new Promise((resolve) => setTimeout(() => resolve({ done: true }), 600)),
          },
        ],
      },
      { requestTimeoutMS: 150 },
    );
    try {
      const res = await request(t.app).post('/api/scan').attach('file', Buffer.from('hello'), 'hello.txt');
      expect(res.status).toBe(503);
      expect(res.body.code).toBe('database_timeout');
      await until(() => debug.length > 0, 5000, 'the late answer');
      expect(t.hostErrors).toEqual([]);
      expect(debug).toEqual(['content-router: POST /api/scan finished after its deadline answer']);
    } finally {
      await t.close();
    }
  });

  it('stops counting once a function endpoint passes the request on to the host with next()', async () => {
    const t = await createTestApp(
      { collections, endpoints: [(router) => router.get('/pass', (_req, _res, next) => next())] },
      { requestTimeoutMS: 150 },
    );
    // The host's own route behind the router, slower than the router's deadline: not the router's request any more.
    const app = express();
    app.use('/api', t.api);
    app.get('/api/pass', (_req, res) => void setTimeout(() => res.json({ host: 'late answer' }), 400));
    try {
      const res = await request(app).get('/api/pass');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ host: 'late answer' });
    } finally {
      await t.close();
    }
  });
});
