// Failing fast while the database is down: a route that needs it answers 503 at once (no buffering, no
// server selection wait), a route whose config says `database: false` is still served, and the router's own
// connection waits at most 5 s for a server unless the host says otherwise.
import { EventEmitter } from 'node:events';
import express from 'express';
import mongoose, { type Connection } from 'mongoose';
import request from 'supertest';
import { contentRouter } from '../../lib';
import { type DatabaseGate, createDatabaseGate } from '../../lib/http/database-gate';
import { createDispatcher } from '../../lib/http/dispatch';
import { createErrorHandler } from '../../lib/http/error-handler';
import { createOutageLog } from '../../lib/operations/outage-log';
import { type Lifecycle, createLifecycle } from '../../lib/http/lifecycle';
import type { RouteDef } from '../../lib/http/route-table';
import { asUser, createTestApp } from '../helpers/create-test-app';
import { openTestConnection, testDbUri, uniqueDbName } from '../helpers/test-db';
import { quietFor, until } from '../helpers/eventually';

const silent = { error: () => undefined, warn: () => undefined, info: () => undefined, debug: () => undefined };
const collections = [{ slug: 'things', access: { read: () => true, create: () => true }, fields: { title: { type: 'text' as const } } }];
const user = asUser({ id: '000000000000000000000001' });

function route(path: string, database?: boolean): RouteDef {
  return {
    method: 'get',
    path,
    operationId: `test.${path.slice(1)}`,
    summary: path,
    tags: [],
    auth: 'none',
    responses: { 200: { description: 'ok' } },
    ...(database === undefined ? {} : { config: { database } }),
    handler: (_req, res) => void res.json({ served: path }),
  };
}

/** A stand-in connection: its state at the start, then the events Mongoose emits on each change. */
function fakeConnection(readyState: number, db?: unknown): EventEmitter & { readyState: number; db: unknown } {
  return Object.assign(new EventEmitter(), { readyState, db });
}

function appWithGate(connection: EventEmitter & { readyState: number; db: unknown }) {
  const app = express();
  const errors = createErrorHandler(silent);
  const gate = createDatabaseGate(connection as unknown as Connection, { requestTimeoutMS: false, answer: errors.answerEarly });
  app.use(createDispatcher([route('/records'), route('/static', false)], gatePhases(gate)));
  app.use(errors);
  return app;
}

/** The phases of a dispatcher with only the gate's hooks (and no error hooks: errors go on to the app's handler). */
function gatePhases(gate: DatabaseGate, deadline = false): Lifecycle {
  return { ...createLifecycle(), onRequest: [gate.onRequest], preHandler: deadline ? [gate.deadline] : [] };
}

/**
 * A route answering after `ms` (never, without it), as a command the driver lost track of would. `streamed`:
 * an upload, whose handler reads its multipart body at the client's pace (config `deadline: false`).
 */
function slowRoute(path: string, ms?: number, streamed = false): RouteDef {
  return {
    ...route(path),
    ...(streamed ? { body: { type: 'multipart' as const, shape: { kind: 'upload' } as never, required: true }, config: { deadline: false } } : {}),
    handler: async (_req, res) => {
      await new Promise((resolve) => (ms === undefined ? undefined : setTimeout(resolve, ms)));
      res.json({ late: path });
    },
  };
}

describe('the database gate', () => {
  it.each([
    ['disconnected', mongoose.ConnectionStates.disconnected],
    ['disconnecting', mongoose.ConnectionStates.disconnecting],
    ['uninitialized', mongoose.ConnectionStates.uninitialized],
  ])('refuses a database route with 503 + Retry-After while %s, and serves a route whose config says database: false', async (_name, state) => {
    const app = appWithGate(fakeConnection(state));
    const refused = await request(app).get('/records');
    expect(refused.status).toBe(503);
    expect(refused.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(refused.headers['retry-after']).toBe('5');
    expect(refused.body).toMatchObject({ status: 503, code: 'service_unavailable', detail: expect.stringContaining('not processed') });
    const served = await request(app).get('/static');
    expect(served.status).toBe(200);
    expect(served.body).toEqual({ served: '/static' });
  });

  it.each([
    ['connected', mongoose.ConnectionStates.connected],
    ['connecting (the first connect: Mongoose buffers until it opens)', mongoose.ConnectionStates.connecting],
  ])('lets a request through while %s', async (_name, state) => {
    const res = await request(appWithGate(fakeConnection(state))).get('/records');
    expect(res.status).toBe(200);
  });

  it('follows the connection down and up again', async () => {
    const connection = fakeConnection(mongoose.ConnectionStates.connected);
    const app = appWithGate(connection);
    expect((await request(app).get('/records')).status).toBe(200);
    connection.emit('disconnected');
    expect((await request(app).get('/records')).status).toBe(503);
    connection.emit('connected');
    expect((await request(app).get('/records')).status).toBe(200);
  });

  it('does not refuse because heartbeats are late (readyState reads disconnected, no event said so)', async () => {
    const connection = fakeConnection(mongoose.ConnectionStates.connected);
    const app = appWithGate(connection);
    // Mongoose's readyState getter answers `disconnected` after two missed heartbeats, without an event.
    connection.readyState = mongoose.ConnectionStates.disconnected;
    expect((await request(app).get('/records')).status).toBe(200);
  });

  it('stops following the connection once closed', () => {
    const connection = fakeConnection(mongoose.ConnectionStates.connected);
    const gate = createDatabaseGate(connection as unknown as Connection, { requestTimeoutMS: false, answer: () => undefined });
    expect(connection.listenerCount('disconnected')).toBe(1);
    gate.close();
    expect(connection.eventNames()).toEqual([]);
  });

  it('probes a down connection at most about once a second however many requests it refuses', async () => {
    let pings = 0;
    const db = { command: async () => { pings++; throw new Error('still down'); } };
    const app = appWithGate(fakeConnection(mongoose.ConnectionStates.disconnected, db));
    for (let i = 0; i < 20; i++) expect((await request(app).get('/records')).status).toBe(503);
    expect(pings).toBe(1);
  });
});

describe('what the gate logs of an outage', () => {
  /** The gate and the error handler as the router wires them, logging into `calls` by level. */
  function loggedApp(connection: EventEmitter & { readyState: number; db: unknown }) {
    const calls: Record<'error' | 'warn' | 'info' | 'debug', unknown[][]> = { error: [], warn: [], info: [], debug: [] };
    const logger = {
      error: (...args: unknown[]) => void calls.error.push(args),
      warn: (...args: unknown[]) => void calls.warn.push(args),
      info: (...args: unknown[]) => void calls.info.push(args),
      debug: (...args: unknown[]) => void calls.debug.push(args),
    };
    const outage = createOutageLog(logger);
    const errors = createErrorHandler(logger, outage);
    const gate = createDatabaseGate(connection as unknown as Connection, { requestTimeoutMS: false, answer: errors.answerEarly, outage });
    // A route whose database call fails as a lost connection makes the driver fail it.
    const lost: RouteDef = {
      ...route('/lost'),
      handler: () => {
        throw Object.assign(new Error('connection 4 to 127.0.0.1:27017 closed'), { name: 'MongoNetworkError' });
      },
    };
    const app = express();
    app.use(createDispatcher([route('/records'), lost], gatePhases(gate)));
    app.use(errors);
    return { app, calls };
  }

  it('logs the connection going down once (error) and coming back once (info), and none of the requests it refuses', async () => {
    const connection = fakeConnection(mongoose.ConnectionStates.connected);
    const { app, calls } = loggedApp(connection);
    connection.emit('disconnected');
    for (let i = 0; i < 25; i++) expect((await request(app).get('/records')).status).toBe(503);
    connection.emit('close');
    expect((await request(app).get('/records')).status).toBe(503);
    connection.emit('connected');
    expect((await request(app).get('/records')).status).toBe(200);
    expect(calls).toEqual({
      debug: [],
      error: [[expect.stringContaining('the database is unreachable')]],
      warn: [],
      info: [[expect.stringContaining('the database is reachable again')]],
    });
  });

  it('logs nothing when the connection is closed on purpose (connection.close() starts with disconnecting)', async () => {
    const connection = fakeConnection(mongoose.ConnectionStates.connected);
    const { app, calls } = loggedApp(connection);
    for (const event of ['disconnecting', 'disconnected', 'close']) connection.emit(event);
    expect((await request(app).get('/records')).status).toBe(503);
    expect(calls).toEqual({ error: [], warn: [], info: [], debug: [] });
  });

  it("logs a failed database call once per change of the connection's state, on one line without a stack, and counts the rest", async () => {
    const connection = fakeConnection(mongoose.ConnectionStates.connected);
    const { app, calls } = loggedApp(connection);
    for (let i = 0; i < 10; i++) {
      const res = await request(app).get('/lost');
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ code: 'service_unavailable' });
    }
    expect(calls.warn).toEqual([[expect.stringMatching(/^content-router: GET \/lost: the database could not be reached \(MongoNetworkError: connection 4 to 127\.0\.0\.1:27017 closed\)/)]]);
    connection.emit('disconnected');
    connection.emit('connected');
    for (let i = 0; i < 10; i++) expect((await request(app).get('/lost')).status).toBe(503);
    // The connection's return sums up the failures folded before it; the next one is logged in full again.
    expect(calls.warn.slice(1)).toEqual([
      ['content-router: 9 more requests were answered 503: the database could not be reached.'],
      [expect.stringMatching(/^content-router: GET \/lost: the database could not be reached/)],
    ]);
    expect(calls.error).toHaveLength(1);
    expect(calls.info).toHaveLength(1);
  });
});

describe('the request deadline (db.requestTimeoutMS)', () => {
  function appWithDeadline(ms: number) {
    const warnings: string[] = [];
    const debug: string[] = [];
    const hostErrors: unknown[] = [];
    const app = express();
    const errors = createErrorHandler({ ...silent, warn: (message: unknown) => void warnings.push(String(message)), debug: (message: unknown) => void debug.push(String(message)) });
    const gate = createDatabaseGate(fakeConnection(mongoose.ConnectionStates.connected) as unknown as Connection, { requestTimeoutMS: ms, answer: errors.answerEarly });
    const routes = [route('/records'), slowRoute('/hung'), slowRoute('/slow', 400), slowRoute('/upload', 400, true)];
    app.use(createDispatcher(routes, gatePhases(gate, true)));
    app.use(errors);
    app.use((error: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
      hostErrors.push(error);
      res.status(500).end();
    });
    return { app, warnings, debug, hostErrors };
  }

  it('answers a request the database never answers with 503 database_timeout + Retry-After at the deadline', async () => {
    const { app, hostErrors } = appWithDeadline(150);
    const res = await request(app).get('/hung').timeout(5000);
    expect(res.status).toBe(503);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.body).toMatchObject({ status: 503, code: 'database_timeout', detail: expect.stringContaining('may or may not have been applied') });
    expect(hostErrors).toEqual([]);
  });

  it('gives every request its own full deadline, however many are in flight (one timer serves them all)', async () => {
    const { app, hostErrors } = appWithDeadline(300);
    const timed = async (delay: number) => {
      await new Promise((resolve) => setTimeout(resolve, delay));
      const start = Date.now();
      const res = await request(app).get('/hung').timeout(5000);
      return { status: res.status, code: res.body.code as string, elapsed: Date.now() - start };
    };
    const fastOnes = Promise.all([20, 60, 120].map(async (delay) => {
      await new Promise((resolve) => setTimeout(resolve, delay));
      return (await request(app).get('/records')).status;
    }));
    const answers = await Promise.all([timed(0), timed(150), timed(250)]);
    expect(await fastOnes).toEqual([200, 200, 200]);
    for (const answer of answers) {
      expect(answer).toMatchObject({ status: 503, code: 'database_timeout' });
      // Never before its own deadline, and not held back for the others'.
      expect(answer.elapsed).toBeGreaterThanOrEqual(295);
      expect(answer.elapsed).toBeLessThan(1000);
    }
    expect(hostErrors).toEqual([]);
  });

  it('keeps two routers\' deadlines apart: a request one router passes on to the next does not hold back the first router\'s others', async () => {
    // Two routers on one path, as `app.use('/api', a); app.use('/api', b)`: a's route passes /shared on
    // (a custom endpoint calling next()), so that response goes through both routers' deadlines.
    const errors = createErrorHandler(silent);
    const connection = fakeConnection(mongoose.ConnectionStates.connected) as unknown as Connection;
    const a = createDatabaseGate(connection, { requestTimeoutMS: 300, answer: errors.answerEarly });
    const b = createDatabaseGate(connection, { requestTimeoutMS: 4000, answer: errors.answerEarly });
    const passOn: RouteDef = { ...route('/shared'), handler: (_req, _res, next) => next!() };
    const app = express();
    app.use(createDispatcher([passOn, slowRoute('/hung')], gatePhases(a, true)));
    app.use(createDispatcher([slowRoute('/shared')], gatePhases(b, true)));
    app.use(errors);
    const shared = request(app).get('/shared').timeout(8000).then((res) => res.status, () => 'no answer');
    await new Promise((resolve) => setTimeout(resolve, 50));
    const start = Date.now();
    const hung = await request(app).get('/hung').timeout(8000);
    expect(hung.status).toBe(503);
    expect(hung.body.code).toBe('database_timeout');
    // Its own 300 ms deadline, not the 4 s one the other router gave the request ahead of it.
    expect(Date.now() - start).toBeLessThan(2000);
    expect(await shared).toBe(503);
    a.close();
    b.close();
  }, 15000);

  it('still answers requests in flight when the router closes (the gate closes last; a hung request must not hang shutdown)', async () => {
    const errors = createErrorHandler(silent);
    const gate = createDatabaseGate(fakeConnection(mongoose.ConnectionStates.connected) as unknown as Connection, { requestTimeoutMS: 300, answer: errors.answerEarly });
    const app = express();
    app.use(createDispatcher([slowRoute('/hung')], gatePhases(gate, true)));
    app.use(errors);
    // then() sends the request now, before the gate closes.
    const pending = request(app).get('/hung').timeout(3000).then((res) => res, (error: Error) => ({ status: error.message, body: {} as Record<string, unknown> }));
    await new Promise((resolve) => setTimeout(resolve, 50));
    gate.close();
    const res = await pending;
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('database_timeout');
  });

  it('keeps the deadlines of the requests after one whose answer threw (a failing host logger), and closes that one', async () => {
    let calls = 0;
    const answered: string[] = [];
    const gate = createDatabaseGate(fakeConnection(mongoose.ConnectionStates.connected) as unknown as Connection, {
      requestTimeoutMS: 100,
      answer: (_error, req) => {
        calls += 1;
        if (calls === 1) throw new Error('logger down');
        answered.push(req.url);
      },
    });
    const deadline = gate.deadline(route('/hung'));
    if (!deadline) throw new Error('expected a deadline middleware');
    const destroyed: string[] = [];
    const inFlight = (url: string) => {
      const res = Object.assign(new EventEmitter(), { headersSent: false, req: { url }, destroy: () => void destroyed.push(url) });
      deadline(res.req as never, res as never, () => undefined);
    };
    try {
      inFlight('/first');
      await new Promise((resolve) => setTimeout(resolve, 30));
      inFlight('/second');
      await until(() => destroyed.length + answered.length >= 2, 5000, 'both deadlines');
    } finally {
      gate.close();
    }
    expect(destroyed).toEqual(['/first']);
    expect(answered).toEqual(['/second']);
  });

  it('drops the late answer of a slow route with a debug line: never to the host, never a crash', async () => {
    const { app, warnings, debug, hostErrors } = appWithDeadline(100);
    const res = await request(app).get('/slow');
    expect(res.status).toBe(503);
    await until(() => debug.length > 0, 5000, 'the late answer');
    expect(hostErrors).toEqual([]);
    expect(warnings).toEqual([expect.stringContaining('GET /slow: The database did not answer within 0.1 s')]);
    expect(debug).toEqual(['content-router: GET /slow finished after its deadline answer']);
  });

  it('leaves answers within the deadline and uploads (which stream at the client\'s pace) alone', async () => {
    const { app, warnings } = appWithDeadline(200);
    const fast = await request(app).get('/records');
    expect(fast.status).toBe(200);
    const upload = await request(app).get('/upload');
    expect(upload.status).toBe(200);
    expect(upload.body).toEqual({ late: '/upload' });
    await quietFor(300); // past the deadline: no warning may come
    expect(warnings).toEqual([]);
  });

  it('applies to a router\'s own routes: a custom endpoint slower than the deadline is a 503', async () => {
    const connection = await openTestConnection();
    // The endpoint waits until the test lets it go (not on a clock), so it misses any deadline; the deadline is
    // long enough that a slow database server still answers the collection route within it.
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    let answered!: () => void;
    const reportAnswered = new Promise<void>((resolve) => (answered = resolve));
    const t = await createTestApp(
      {
        collections,
        endpoints: [
          {
            path: '/report',
            method: 'get',
            handler: async () => {
              await finished;
              answered();
              return { done: true };
            },
          },
        ],
      },
      { connection, requestTimeoutMS: 1500 },
    );
    try {
      const res = await request(t.app).get('/api/report');
      expect(res.status).toBe(503);
      expect(res.body.code).toBe('database_timeout');
      expect((await request(t.app).get('/api/things').set(...user)).status).toBe(200);
      // The endpoint's late answer is dropped, never handed to the host.
      finish();
      await reportAnswered;
      await new Promise((resolve) => setImmediate(resolve));
      expect(t.hostErrors).toEqual([]);
    } finally {
      finish();
      await t.close();
      await connection.close();
    }
  });
});

describe('a router whose connection went away', () => {
  it('answers 503 at once instead of buffering the command (bufferCommands left at its default)', async () => {
    const connection = await openTestConnection();
    const t = await createTestApp({ collections }, { connection });
    await connection.dropDatabase();
    await connection.close();
    // Without the gate Mongoose would buffer these for bufferTimeoutMS (10 s): the client gives up at 3 s.
    for (const res of [
      await request(t.app).get('/api/things').set(...user).timeout(3000),
      await request(t.app).post('/api/things').set(...user).send({ title: 'a' }).timeout(3000),
    ]) {
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
    }
    // Unknown paths and methods are still answered without the database.
    expect((await request(t.app).get('/api/things/a/b').set(...user)).status).toBe(404);
    expect((await request(t.app).put('/api/things').set(...user)).status).toBe(405);
    expect(t.hostErrors).toEqual([]);
    await t.close();
  }, 20000);
});

describe("the router's own connection", () => {
  const selectionTimeout = (dbName: string) =>
    (mongoose.connections.find((c) => c.name === dbName)?.getClient().options as { serverSelectionTimeoutMS?: number } | undefined)?.serverSelectionTimeoutMS;

  it.each([
    ['no option', '', {}, 5000],
    ['db.options', '', { serverSelectionTimeoutMS: 20001 }, 20001],
    ['the URI', 'serverSelectionTimeoutMS=20002', {}, 20002],
  ])('waits 5 s for a server by default; the host sets it through %s', async (_where, query, options, expected) => {
    const dbName = uniqueDbName();
    const base = testDbUri();
    const uri = query ? `${base}${base.includes('?') ? '&' : '?'}${query}` : base;
    const api = contentRouter({ db: { uri, options: { dbName, ...options } }, collections, logger: silent });
    // The client's options are set when it is created; whether a busy test server answered in time does not matter.
    await api.ready.catch(() => undefined);
    expect(selectionTimeout(dbName)).toBe(expected);
    await mongoose.connections.find((c) => c.name === dbName)!.dropDatabase().catch(() => undefined);
    await api.close();
  }, 20000);
});
