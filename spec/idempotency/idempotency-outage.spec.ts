// Idempotency-Key while the database hangs (a TCP proxy holding its bytes): the key's own database waits are
// bounded by the request deadline, a claim landing after its request's 503 is given up, and an answer whose
// storing outlived the deadline is answered 503 (without the success's headers) yet replayed to the retry.
import mongoose, { type Connection } from 'mongoose';
import request from 'supertest';
import { IDEMPOTENCY_COLLECTION } from '../../lib/idempotency/idempotency-store';
import { type TestApp, createTestApp } from '../helpers/create-test-app';
import { until } from '../helpers/eventually';
import { type TcpProxy, parseMongoHost, startTcpProxy } from '../helpers/tcp-proxy';
import { testDbUri, uniqueDbName } from '../helpers/test-db';

const DEADLINE_MS = 300;

let proxy: TcpProxy;
let connection: Connection;
let t: TestApp;
/** Set by a test: the posts' afterChange hook holds the database once the record is written. */
let holdAfterWrite = false;
/** The proxy's release() pipes again whatever it holds: called twice, every byte would go twice. */
let held = false;
function hold(): void {
  if (!held) proxy.hold();
  held = true;
}
function release(): void {
  if (held) proxy.release();
  held = false;
}

beforeAll(async () => {
  proxy = await startTcpProxy(parseMongoHost(testDbUri()));
  connection = await mongoose.createConnection(`mongodb://127.0.0.1:${proxy.port}/?directConnection=true`, { dbName: uniqueDbName('idem-outage') }).asPromise();
  t = await createTestApp(
    {
      collections: [
        {
          slug: 'posts',
          access: { create: () => true, read: () => true },
          fields: { title: { type: 'text', required: true } },
          hooks: {
            afterChange: [
              () => {
                if (holdAfterWrite) hold();
              },
            ],
          },
        },
      ],
    },
    { connection, requestTimeoutMS: DEADLINE_MS },
  );
});
afterEach(() => {
  holdAfterWrite = false;
  release();
  expect(t.hostErrors).toEqual([]);
});
afterAll(async () => {
  await t.close();
  await connection.dropDatabase().catch(() => undefined);
  await connection.close(true);
  await proxy.close();
});

const rows = () => connection.collection(IDEMPOTENCY_COLLECTION).find().toArray();
const create = (key: string, title: string) => request(t.app).post('/api/posts').set('Idempotency-Key', key).send({ title });

it('a claim the database does not answer is a 503 database_timeout within the deadline, and the key is free once it answers', async () => {
  hold();
  const started = Date.now();
  const res = await create('held-claim', 'one');
  expect(res.status).toBe(503);
  expect(res.body.code).toBe('database_timeout');
  expect(Date.now() - started).toBeLessThan(DEADLINE_MS + 2000);
  release();
  // The claim lands now, late: it is given up rather than holding the key for its lease.
  await until(async () => (await rows()).length === 0);
  const retry = await create('held-claim', 'one');
  expect(retry.status).toBe(201);
  expect(retry.headers['idempotent-replayed']).toBeUndefined();
  expect((await create('held-claim', 'one')).headers['idempotent-replayed']).toBe('true');
  expect((await create('held-claim', 'one')).headers['idempotent-replayed']).toBe('true');
});

it('an answer still being stored at the deadline: a 503 without its headers, and the retry gets the stored answer', async () => {
  holdAfterWrite = true;
  const first = await create('held-store', 'two');
  expect(first.body).toMatchObject({ status: 503 });
  expect(first.body.code).toBe('database_timeout');
  expect(first.headers['content-type']).toMatch(/application\/problem\+json/);
  expect(first.headers.location).toBeUndefined();
  expect(first.headers.etag).toBeUndefined();
  holdAfterWrite = false;
  release();
  // Every row: the test before left a done row of its own key.
  await until(async () => (await rows()).every((row) => row.state === 'done'));
  const retry = await create('held-store', 'two');
  expect(retry.status).toBe(201);
  expect(retry.headers['idempotent-replayed']).toBe('true');
  expect(retry.headers.location).toBe(`/api/posts/${retry.body.id}`);
  expect(await connection.collection('posts').countDocuments({ title: 'two' })).toBe(1);
});
