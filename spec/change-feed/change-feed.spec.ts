// The change feed on the real test server: writes made straight through the driver arrive on the bus as
// origin-stream events (full document, resume token, time), globals by slug; a server without change
// streams is reported in one log line; a server that does not answer the stream's opening holds start()
// only up to its timeout, and the streams open when it answers.
import mongoose, { type mongo } from 'mongoose';
import { createChangeFeed } from '../../lib/change-feed/change-feed';
import { type ChangeEvent, createChangeBus } from '../../lib/changes/change-bus';
import type { Runtime } from '../../lib/operations/runtime';
import { until } from '../helpers/eventually';
import { type TcpProxy, parseMongoHost, startTcpProxy } from '../helpers/tcp-proxy';
import { capabilities, closeTestConnection, describeIf, openTestConnection, testDbUri, uniqueDbName } from '../helpers/test-db';
import type { Connection } from 'mongoose';
import { systemClock } from '../../lib/util/clock';

const silent = { error: () => undefined, warn: () => undefined, info: () => undefined, debug: () => undefined };

/** The part of a runtime the feed reads: collections by slug with their MongoDB names, globals, the bus. */
function feedRuntime(connection: Connection, logger = silent, globals: string[] = ['site']): Runtime {
  const collection = (slug: string) => [slug, { descriptor: { slug }, model: { collection: { collectionName: slug } } }] as const;
  return {
    connection,
    config: { logger, clock: systemClock },
    collections: new Map([collection('posts'), collection('tags')]),
    globals: new Map(globals.map((slug) => [slug, {}])),
    changes: createChangeBus(logger),
  } as unknown as Runtime;
}

describeIf(capabilities().changeStreams, 'the server has no change streams')('the change feed', () => {
  let connection: Connection;
  let runtime: Runtime;
  let feed: ReturnType<typeof createChangeFeed>;
  const events: ChangeEvent[] = [];

  beforeAll(async () => {
    connection = await openTestConnection();
    runtime = feedRuntime(connection);
    runtime.changes.onChange((event) => events.push(event));
    feed = createChangeFeed(runtime);
    await feed.start();
  });

  afterAll(async () => {
    await feed.close();
    await closeTestConnection(connection);
  });

  it('publishes a driver insert as a stream create with the full document, token and time', async () => {
    const { insertedId } = await connection.db!.collection('posts').insertOne({ title: 'driver' });
    const event = await until(() => events.find((e) => e.type === 'create' && e.ids[0] === insertedId.toHexString()));
    expect(event).toMatchObject({ scope: 'collection', slug: 'posts', origin: 'stream', docs: [{ title: 'driver' }] });
    expect(event.resumeToken).toBeDefined();
    expect(event.timestamp).toBeInstanceOf(Date);
  });

  it('publishes updates and deletes, each on its own collection', async () => {
    const tags = connection.db!.collection('tags');
    const { insertedId } = await tags.insertOne({ name: 'a' });
    const id = insertedId.toHexString();
    await tags.updateOne({ _id: insertedId }, { $set: { name: 'b' } });
    await tags.deleteOne({ _id: insertedId });
    await until(() => events.find((e) => e.slug === 'tags' && e.type === 'delete' && e.ids[0] === id));
    const update = events.find((e) => e.slug === 'tags' && e.type === 'update');
    expect(update).toBeDefined();
    // Servers that cannot tell the id of an update report none; otherwise it is the record's.
    expect([[], [id]]).toContainEqual(update!.ids);
  });

  it('publishes a global by its slug, and ignores unconfigured globals', async () => {
    await connection.db!.collection('globals').updateOne({ _id: 'other' as never }, { $set: { title: 'x' } }, { upsert: true });
    await connection.db!.collection('globals').updateOne({ _id: 'site' as never }, { $set: { title: 'Hello' } }, { upsert: true });
    const event = await until(() => events.find((e) => e.scope === 'global'));
    expect(event).toMatchObject({ scope: 'global', slug: 'site', ids: ['site'], origin: 'stream' });
    expect(events.some((e) => e.slug === 'other' || e.ids.includes('other'))).toBe(false);
  });
});

describe('the change feed without change streams', () => {
  it('logs one clear line, stays inactive, and closes cleanly', async () => {
    const warnings: string[] = [];
    const logger = { ...silent, warn: (...args: unknown[]) => void warnings.push(args.map(String).join(' ')) };
    const refusing = {
      db: {
        collection: () => ({
          watch: () => ({
            resumeToken: undefined,
            tryNext: () => Promise.reject(Object.assign(new Error('The $changeStream stage is only supported on replica sets'), { code: 40573 })),
            close: () => Promise.resolve(),
          }),
        }),
      } as unknown as mongo.Db,
    } as unknown as Connection;
    const runtime = feedRuntime(refusing, logger);
    const feed = createChangeFeed(runtime);
    await feed.start();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/change streams are not available.*only writes made through this router/);
    await feed.close();
  });
});

describeIf(capabilities().changeStreams, 'the server has no change streams')('a change feed whose server does not answer', () => {
  let proxy: TcpProxy;
  let via: Connection;
  let direct: Connection;
  const logged: { warn: string[]; info: string[] } = { warn: [], info: [] };
  const logger = { ...silent, warn: (...a: unknown[]) => void logged.warn.push(a.map(String).join(' ')), info: (...a: unknown[]) => void logged.info.push(a.map(String).join(' ')) };

  beforeEach(async () => {
    logged.warn.length = 0;
    logged.info.length = 0;
    const dbName = uniqueDbName();
    direct = await openTestConnection(dbName);
    proxy = await startTcpProxy(parseMongoHost(testDbUri()));
    // Through the proxy: the connection opens, then the proxy holds everything sent after that.
    via = await mongoose.createConnection(`mongodb://127.0.0.1:${proxy.port}/?directConnection=true`, { dbName, serverSelectionTimeoutMS: 10000 }).asPromise();
    await via.db!.command({ ping: 1 });
  });

  afterEach(async () => {
    proxy.release();
    await via.close(true);
    await proxy.close();
    await closeTestConnection(direct);
  });

  it('stops waiting after the open timeout with one warning, keeps trying, and opens once the server answers', async () => {
    const runtime = feedRuntime(via, logger, []);
    const events: ChangeEvent[] = [];
    runtime.changes.onChange((event) => events.push(event));
    proxy.hold();
    const feed = createChangeFeed(runtime, { openTimeoutMs: 300 });
    // Without a bound this never settles while the proxy holds.
    await feed.start();
    expect(logged.warn).toEqual([expect.stringMatching(/^content-router: 2 of 2 change streams did not open within 0\.3 s \(the MongoDB server has not answered\); until they do, only writes made through this router invalidate caches and reach realtime clients\. They keep trying\.$/)]);
    expect(logged.info).toEqual([]);

    proxy.release();
    await until(() => logged.info.find((line) => /change streams are open now/.test(line)));
    const { insertedId } = await direct.db!.collection('posts').insertOne({ title: 'after the wait' });
    await until(() => events.find((e) => e.ids[0] === insertedId.toHexString()));
    expect(logged.warn).toHaveLength(1);
    expect(logged.info).toHaveLength(1);
    await feed.close();
  });

  it('closes while the server still does not answer, ending its timer', async () => {
    proxy.hold();
    const feed = createChangeFeed(feedRuntime(via, logger, []), { openTimeoutMs: 60_000 });
    const started = feed.start();
    // Closing first ends the wait at once: start() settles without waiting out the minute, and logs nothing.
    await feed.close();
    await started;
    expect(logged.warn).toEqual([]);
  });
});

describeIf(capabilities().changeStreams, 'the server has no change streams')('a change feed whose server goes away for a while', () => {
  let proxy: TcpProxy;
  let via: Connection;
  const logged: Record<'warn' | 'info' | 'debug' | 'error', string[]> = { warn: [], info: [], debug: [], error: [] };
  const record = (level: keyof typeof logged) => (...a: unknown[]) => void logged[level].push(a.map((x) => (x instanceof Error ? x.stack : String(x))).join(' '));
  const logger = { error: record('error'), warn: record('warn'), info: record('info'), debug: record('debug') };

  beforeAll(async () => {
    proxy = await startTcpProxy(parseMongoHost(testDbUri()));
    // Short driver bounds: each retry during the outage fails within a second or two.
    via = await mongoose
      .createConnection(`mongodb://127.0.0.1:${proxy.port}/?directConnection=true`, { dbName: uniqueDbName(), serverSelectionTimeoutMS: 1000, heartbeatFrequencyMS: 500, connectTimeoutMS: 1000 })
      .asPromise();
  });
  afterAll(async () => {
    await via.close(true);
    await proxy.close();
  });

  it('logs the first failure once (a warning without a stack), every retry at debug, and the streams open again once', async () => {
    const feed = createChangeFeed(feedRuntime(via, logger));
    await feed.start();
    try {
      await proxy.stop();
      await until(() => logged.warn[0]);
      // Every stream retries several times meanwhile (200 ms, then doubling).
      await until(() => logged.debug.filter((line) => line.includes('retrying')).length > 2, 20_000, 'three retries');
      await proxy.resume();
      await until(() => logged.info.find((line) => line.includes('change streams are open now')), 20_000);

      expect(logged.error).toEqual([]);
      expect(logged.warn).toEqual([expect.stringMatching(/^content-router: the change stream of "(posts|tags|globals)" failed \(\w+: [^\n]*\); retrying\. /)]);
      expect(logged.info).toEqual([expect.stringMatching(/^content-router: the change streams are open now; writes made elsewhere reach caches and realtime clients again\./)]);
      expect(logged.debug.filter((line) => line.includes('retrying')).length).toBeGreaterThan(2);
      for (const line of [...logged.warn, ...logged.debug]) expect(line).not.toMatch(/\n\s+at /);
    } finally {
      await feed.close();
    }
  });
});
