/**
 * Test database helpers.
 *
 * The Jest global setup (spec/setup/global-setup.js) guarantees `process.env.MONGODB_URI` points at
 * a live server and probes its capabilities once (`TEST_DB_CAPABILITIES`). Each spec file opens its
 * own mongoose connection to its own uniquely named database:
 *
 *   let conn: Connection;
 *   beforeAll(async () => { conn = await openTestConnection(); });
 *   afterAll(async () => { await closeTestConnection(conn); });
 *
 *   itIf(capabilities().changeStreams, 'server has no change streams')('emits realtime events', async () => { ... });
 *
 * Every database is named `<TEST_DB_PREFIX>_<host>_<pid>_<kind>_<worker>_<random>` (spec/setup/run-databases.js):
 * the global teardown drops this run's, and the next run's setup those a killed run left behind.
 *
 * Known server quirks (CI uses mongo-java-server, see .ci/launcher): no sessions/transactions, no
 * `$text` queries, no `explain`. Its change events have MongoDB's shape (the launcher extends it), except
 * that updatedFields names a changed array whole and events carry no wallTime.
 */
import { randomBytes } from 'node:crypto';

import mongoose from 'mongoose';
import type { Connection, mongo } from 'mongoose';

import { nextChangeWithin, probeCapabilities, readCapabilitiesFromEnv } from '../setup/capabilities';
import type { DbCapabilities } from '../setup/capabilities';
import { runStem } from '../setup/run-databases';

export type { DbCapabilities };

/** The server URI set by the global setup (or by the caller's environment). */
export function testDbUri(): string {
  const uri = process.env.MONGODB_URI;
  if (!uri) {
    throw new Error('MONGODB_URI is not set: run the tests through jest (spec/setup/global-setup.js sets it).');
  }
  return uri;
}

/**
 * A database name unique to this test file/worker and of this run, e.g. `cr_3fa9c1_4242_db_1_9f3a0c1b2d4e`;
 * `kind` says what it is for.
 */
export function uniqueDbName(kind = 'db'): string {
  const worker = process.env.JEST_WORKER_ID ?? '0';
  return `${runStem()}${kind}_${worker}_${randomBytes(6).toString('hex')}`;
}

/** Opens a NEW mongoose connection (never the global default one) to a fresh, unique database. */
export async function openTestConnection(dbName: string = uniqueDbName()): Promise<Connection> {
  const conn = mongoose.createConnection(testDbUri(), {
    dbName,
    serverSelectionTimeoutMS: 10000,
    autoIndex: true,
  });
  try {
    return await conn.asPromise();
  } catch (err) {
    await conn.close(true).catch(() => undefined);
    throw err;
  }
}

/** Drops the connection's database and closes the connection (always closes, even if the drop fails). */
export async function closeTestConnection(conn: Connection | undefined): Promise<void> {
  if (!conn) return;
  try {
    if (conn.readyState === mongoose.ConnectionStates.connected) {
      await conn.dropDatabase();
    }
  } finally {
    await conn.close(true);
  }
}

const probed = new WeakMap<Connection, Promise<DbCapabilities>>();

/**
 * Probes the real server behind `conn` (transaction via withTransaction, text index + `$text`
 * query, change stream receiving an insert, explain with executionStats) in scratch collections it
 * drops afterwards. Cached per connection.
 */
export function detectCapabilities(conn: Connection): Promise<DbCapabilities> {
  let result = probed.get(conn);
  if (!result) {
    const db = conn.db;
    if (!db) return Promise.reject(new Error('detectCapabilities: the connection is not open'));
    result = probeCapabilities(conn.getClient(), db);
    probed.set(conn, result);
  }
  return result;
}

/**
 * The capabilities probed once by the global setup, available synchronously (i.e. while tests are
 * being registered, so `itIf`/`describeIf` can skip). All false if unknown.
 */
export function capabilities(): DbCapabilities {
  return readCapabilitiesFromEnv() ?? { transactions: false, textSearch: false, changeStreams: false, findAndModifyEvents: false, explain: false, collation: false };
}

type TestFn = (name: string, fn: jest.ProvidesCallback, timeout?: number) => void;
type DescribeFn = (name: string, fn: jest.EmptyFunction) => void;

/** `itIf(cond, reason)('name', fn)`: a normal test when `cond`, else skipped as `name (skipped: reason)`. */
export function itIf(cond: boolean, reason: string): TestFn {
  return (name, fn, timeout) => {
    if (cond) test(name, fn, timeout);
    else test.skip(`${name} (skipped: ${reason})`, fn, timeout);
  };
}

/** `describeIf(cond, reason)('name', fn)`: a normal block when `cond`, else skipped as `name (skipped: reason)`. */
export function describeIf(cond: boolean, reason: string): DescribeFn {
  return (name, fn) => {
    if (cond) describe(name, fn);
    else describe.skip(`${name} (skipped: ${reason})`, fn);
  };
}

/**
 * Opens a change stream and resolves once the server has accepted it (the initial `$changeStream`
 * aggregate answered), so changes made afterwards are guaranteed to be seen. The stream is used in
 * iterator mode: read it with `nextChange` (or `tryNext`/`next`), not with `.on('change')`.
 * Close it when done.
 */
export async function openChangeStream<T extends mongo.Document = mongo.Document>(
  target: mongo.Collection<T> | mongo.Db,
  pipeline: mongo.Document[] = [],
  options: mongo.ChangeStreamOptions = {},
  timeoutMs = 5000,
): Promise<mongo.ChangeStream<T>> {
  const stream = (target as mongo.Collection<T>).watch(pipeline, { maxAwaitTimeMS: 100, ...options });
  try {
    // tryNext() runs the initial aggregate (and at most one getMore) and returns null when idle.
    const early = await nextChangeWithin(stream, timeoutMs, true);
    if (early) pending.set(stream, [early]);
  } catch (err) {
    await stream.close().catch(() => undefined);
    throw err;
  }
  return stream;
}

const pending = new WeakMap<object, mongo.ChangeStreamDocument[]>();

/** The next event of a stream opened with `openChangeStream`; rejects if none within `timeoutMs`. */
export async function nextChange<T extends mongo.Document = mongo.Document>(
  stream: mongo.ChangeStream<T>,
  timeoutMs = 5000,
): Promise<mongo.ChangeStreamDocument<T>> {
  const early = pending.get(stream)?.shift();
  if (early) return early as mongo.ChangeStreamDocument<T>;
  const ev = await nextChangeWithin(stream, timeoutMs);
  if (!ev) throw new Error(`no change stream event within ${timeoutMs} ms`);
  return ev;
}
