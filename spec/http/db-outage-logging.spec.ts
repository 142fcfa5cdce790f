// What the router logs while the database is away, over a real outage (a TCP proxy between the router and
// the server): the change of state once each way, not a line (let alone a stack) per request it refuses.
import mongoose, { type Connection } from 'mongoose';
import request from 'supertest';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';
import { until } from '../helpers/eventually';
import { type TcpProxy, parseMongoHost, startTcpProxy } from '../helpers/tcp-proxy';
import { testDbUri, uniqueDbName } from '../helpers/test-db';

jest.setTimeout(60_000);

const user = asUser({ id: '000000000000000000000001' });
const collections = [{ slug: 'items', access: { read: () => true }, fields: { title: { type: 'text' as const } } }];

let proxy: TcpProxy;
let connection: Connection;
let t: TestApp;
/** Every call the router made to its logger, by level. */
const calls: Record<'error' | 'warn' | 'info', unknown[][]> = { error: [], warn: [], info: [] };

beforeAll(async () => {
  proxy = await startTcpProxy(parseMongoHost(testDbUri()));
  // Short driver bounds, so the outage is noticed and its end seen within a few seconds.
  connection = await mongoose
    .createConnection(`mongodb://127.0.0.1:${proxy.port}/?directConnection=true`, {
      dbName: uniqueDbName('outage-log'),
      serverSelectionTimeoutMS: 1500,
      heartbeatFrequencyMS: 500,
      connectTimeoutMS: 1500,
      socketTimeoutMS: 3000,
    })
    .asPromise();
  const logger = {
    error: (...args: unknown[]) => void calls.error.push(args),
    warn: (...args: unknown[]) => void calls.warn.push(args),
    info: (...args: unknown[]) => void calls.info.push(args),
  };
  t = await createTestApp({ collections, logger }, { connection });
});

afterAll(async () => {
  await t?.close().catch(() => undefined);
  await connection?.close(true).catch(() => undefined);
  await proxy?.close();
});

const list = () => request(t.app).get('/api/items').set(...user).timeout(10_000);

it('logs the outage once when it starts and once when it ends, however many requests it answers 503 meanwhile', async () => {
  expect((await list()).status).toBe(200);
  for (const level of Object.values(calls)) level.length = 0;

  await proxy.stop();
  const statuses: number[] = [];
  // 120 requests while the database is away (counted, not timed, so a loaded machine sends as many): many 503s,
  // one log line.
  for (let batch = 0; batch < 12; batch += 1) {
    statuses.push(...(await Promise.all(Array.from({ length: 10 }, list))).map((res) => res.status));
  }
  await proxy.resume();
  await until(async () => (await list()).status === 200, 20_000, 'a 200 after the outage');

  expect(statuses.every((status) => status === 503)).toBe(true);
  expect(statuses).toHaveLength(120);
  // The state: down once (error), back once (info).
  expect(calls.error).toEqual([[expect.stringContaining('the database is unreachable')]]);
  expect(calls.info).toEqual([[expect.stringContaining('the database is reachable again')]]);
  // Requests whose database call failed: at most one line per state (up, down, up again), each a plain line.
  expect(calls.warn.length).toBeLessThanOrEqual(3);
  for (const args of calls.warn) {
    expect(args).toEqual([expect.stringContaining('the database could not be reached')]);
    expect(String(args[0])).not.toMatch(/\n\s+at /);
  }
  expect(t.hostErrors).toEqual([]);
});
