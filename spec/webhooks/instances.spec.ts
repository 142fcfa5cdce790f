// Webhooks across instances and restarts, on one database: two routers record and deliver each change once
// between them; a crashed instance's claimed delivery is taken over; a write from another process is
// delivered; a router closed mid-stream and started again delivers what happened meanwhile and nothing
// twice; close() gives back a delivery it was attempting; a lost stream position is logged, not skipped.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Connection } from 'mongoose';
import request from 'supertest';
import type { WebhooksOptions } from '../../lib';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';
import { capabilities, closeTestConnection, describeIf, openTestConnection, testDbUri, uniqueDbName } from '../helpers/test-db';
import { type Answer, type Receiver, ok, startReceiver } from './receivers';
import { until } from '../helpers/eventually';

const writer = asUser({ id: 'w1' });
const DELIVERIES = 'content-router.webhook-deliveries';

interface Instance {
  app: TestApp;
  connection: Connection;
  logs: string[];
  close(): Promise<void>;
}

/** A router on its own connection to `dbName`, as another instance of the same service would be. */
async function startInstance(dbName: string, receiver: Receiver, extra: Partial<WebhooksOptions> = {}): Promise<Instance> {
  const connection = await openTestConnection(dbName);
  const logs: string[] = [];
  const log = (...args: unknown[]) => void logs.push(args.map(String).join(' '));
  const app = await createTestApp(
    {
      logger: { error: log, warn: log, info: () => undefined },
      collections: [{ slug: 'posts', fields: { title: { type: 'text' } } }],
      webhooks: { endpoints: [{ url: receiver.url, secret: receiver.secret, events: ['posts.*'] }], retry: { delays: [50] }, ...extra },
    },
    { connection },
  );
  return {
    app,
    connection,
    logs,
    async close() {
      await app.close();
      await connection.close();
    },
  };
}

/** The ids of the records a receiver was sent creates of, with how many requests each got. */
function createsOf(receiver: Receiver): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of receiver.received) {
    const payload = JSON.parse(r.body) as { type: string; data: { id: string } };
    if (payload.type === 'posts.create') counts.set(payload.data.id, (counts.get(payload.data.id) ?? 0) + 1);
  }
  return counts;
}

describeIf(capabilities().changeStreams, 'the server has no change streams (webhooks read them)')('webhooks across instances', () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  /** A receiver and a fresh database, both removed after the test. */
  async function setting(answer: Answer = ok): Promise<{ receiver: Receiver; dbName: string }> {
    const receiver = await startReceiver(answer);
    const dbName = uniqueDbName();
    cleanup.push(async () => {
      await receiver.close();
      await closeTestConnection(await openTestConnection(dbName));
    });
    return { receiver, dbName };
  }

  async function instance(dbName: string, receiver: Receiver, extra?: Partial<WebhooksOptions>): Promise<Instance> {
    const started = await startInstance(dbName, receiver, extra);
    const stop = started.close;
    let closing: Promise<void> | undefined;
    const close = () => (closing ??= stop());
    cleanup.push(close);
    return { ...started, close };
  }

  it('two routers on one database deliver each change once between them', async () => {
    const { receiver, dbName } = await setting();
    const a = await instance(dbName, receiver);
    const b = await instance(dbName, receiver);
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      const via = i % 2 ? a : b;
      ids.push((await request(via.app.app).post('/api/posts').set(...writer).send({ title: `post ${i}` }).expect(201)).body.id);
    }
    await until(() => ids.every((id) => createsOf(receiver).has(id)));
    // Both saw every change; one row each, and one request each at the receiver.
    expect(await a.connection.collection(DELIVERIES).countDocuments({ type: 'posts.create' })).toBe(10);
    expect([...createsOf(receiver).values()]).toEqual(Array(10).fill(1));
    expect(new Set(receiver.received.map((r) => r.id)).size).toBe(receiver.received.length);
  });

  it("takes over a delivery whose instance crashed while holding it (its lease ran out)", async () => {
    const { receiver, dbName } = await setting();
    const a = await instance(dbName, receiver);
    const now = new Date();
    const payload = JSON.stringify({ type: 'posts.create', timestamp: now.toISOString(), data: { id: 'abc', collection: 'posts' } });
    await a.connection.collection(DELIVERIES).insertOne({
      _id: 'msg_crashed000000000000000000' as never,
      event: 'posts:crashed',
      endpoint: receiver.url,
      type: 'posts.create',
      collection: 'posts',
      recordId: 'abc',
      payload,
      status: 'pending',
      attempts: [],
      tries: 0,
      nextAttemptAt: now,
      owner: 'an instance that died',
      leaseUntil: new Date(now.getTime() - 1),
      createdAt: now,
      expiresAt: new Date(now.getTime() + 3_600_000),
    });
    const [got] = await until(() => (receiver.byId('msg_crashed000000000000000000').length ? receiver.byId('msg_crashed000000000000000000') : undefined));
    expect(got.body).toBe(payload);
    expect(got.verified.ok).toBe(true);
    await until(async () => (await a.connection.collection(DELIVERIES).findOne({ _id: 'msg_crashed000000000000000000' as never }))?.status === 'delivered');
  });

  it('delivers a write made by another process', async () => {
    const { receiver, dbName } = await setting();
    await instance(dbName, receiver);
    const script = `
      const { MongoClient } = require('mongoose').mongo;
      (async () => {
        const client = await MongoClient.connect(process.argv[1]);
        const { insertedId } = await client.db(process.argv[2]).collection('posts').insertOne({ title: 'from afar', createdAt: new Date(), updatedAt: new Date() });
        console.log(insertedId.toHexString());
        await client.close();
      })().catch((error) => { console.error(error); process.exit(1); });`;
    const { stdout } = await promisify(execFile)(process.execPath, ['-e', script, testDbUri(), dbName], { cwd: `${__dirname}/../..` });
    const id = stdout.trim();
    const got = await until(() => receiver.received.find((r) => JSON.parse(r.body).data.id === id));
    expect(JSON.parse(got.body)).toMatchObject({ type: 'posts.create', data: { id, collection: 'posts', doc: { id, title: 'from afar' } } });
  });

  it('a router closed mid-stream and started again delivers what happened meanwhile, and nothing twice', async () => {
    const { receiver, dbName } = await setting();
    const first = await instance(dbName, receiver);
    const before = (await request(first.app.app).post('/api/posts').set(...writer).send({ title: 'before' }).expect(201)).body.id;
    await until(() => createsOf(receiver).has(before));
    await first.close();
    // Written while no router runs.
    const meanwhile = await openTestConnection(dbName);
    const { insertedIds } = await meanwhile.db!.collection('posts').insertMany([{ title: 'meanwhile 1' }, { title: 'meanwhile 2' }]);
    await meanwhile.close();
    const second = await instance(dbName, receiver);
    const after = (await request(second.app.app).post('/api/posts').set(...writer).send({ title: 'after' }).expect(201)).body.id;
    const expected = [before, ...Object.values(insertedIds).map((id) => id.toHexString()), after];
    await until(() => expected.every((id) => createsOf(receiver).has(id)));
    expect([...createsOf(receiver).entries()].sort()).toEqual(expected.map((id) => [id, 1]).sort());
    expect(second.logs.filter((line) => line.includes('lost changes'))).toEqual([]);
  });

  it('close() gives back a delivery it was attempting; the next start sends it again with the same webhook-id', async () => {
    let hanging = true;
    const { receiver, dbName } = await setting((req, res, count) => (hanging ? undefined : ok(req, res, count)));
    const first = await instance(dbName, receiver, { timeoutMs: 60_000 });
    const id = (await request(first.app.app).post('/api/posts').set(...writer).send({ title: 'interrupted' }).expect(201)).body.id;
    const [attempt] = await until(() => (receiver.received.length ? receiver.received : undefined));
    await first.close();
    const row = await until(async () => {
      const connection = await openTestConnection(dbName);
      try {
        return await connection.collection(DELIVERIES).findOne({ recordId: id });
      } finally {
        await connection.close();
      }
    });
    // Not an attempt of the receiver's: nothing is logged, and nobody holds it.
    expect(row).toMatchObject({ status: 'pending', attempts: [] });
    expect(row).not.toHaveProperty('owner');
    hanging = false;
    await instance(dbName, receiver);
    await until(() => receiver.byId(attempt.id).length === 2);
    expect(receiver.byId(attempt.id).every((r) => r.body === attempt.body)).toBe(true);
  });

  it('logs, as an error naming since when, a stream position the server can no longer resume from; delivery goes on', async () => {
    const { receiver, dbName } = await setting();
    const first = await instance(dbName, receiver);
    await request(first.app.app).post('/api/posts').set(...writer).send({ title: 'kept' }).expect(201);
    await until(() => receiver.received.length === 1);
    await first.close();
    const connection = await openTestConnection(dbName);
    await connection.collection('content-router.webhook-cursors').updateOne({ _id: 'posts' as never }, { $set: { token: { _data: 'no-such-position' } } });
    await connection.close();
    const second = await instance(dbName, receiver);
    const line = await until(() => second.logs.find((l) => l.includes('webhooks lost changes of "posts"')));
    expect(line).toMatch(/Changes made since \d{4}-\d\d-\d\dT[\d:.]+Z until now that were not yet recorded will not be delivered/);
    // The stream starts afresh from now once it reopens: writes from then on are delivered.
    const written: string[] = [];
    let last = 0;
    await until(async () => {
      if (Date.now() - last > 250) {
        last = Date.now();
        written.push((await request(second.app.app).post('/api/posts').set(...writer).send({ title: 'after the loss' }).expect(201)).body.id);
      }
      return written.some((id) => createsOf(receiver).has(id));
    });
  });
});
