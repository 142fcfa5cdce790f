// A drop of another collection of the same database is not a loss of the watched collection's changes:
// webhooks go on without saying "lost changes", and a restart replays nothing. (Some servers send every drop
// to every stream of the database; the watcher ignores a drop that names another collection, which
// spec/changes/normalize-change.spec.ts checks event by event.)
import type { Connection } from 'mongoose';
import { type TestApp, createTestApp } from '../helpers/create-test-app';
import { capabilities, closeTestConnection, describeIf, openTestConnection, uniqueDbName } from '../helpers/test-db';
import { type Receiver, startReceiver } from './receivers';
import { until } from '../helpers/eventually';


describeIf(capabilities().changeStreams, 'the server has no change streams (webhooks read them)')('a drop of another collection', () => {
  const dbName = uniqueDbName();
  let receiver: Receiver;
  let connection: Connection;
  const logs: string[] = [];

  /** A router on the shared database; its errors and warnings go to `logs`. */
  const start = (): Promise<TestApp> => {
    const log = (...args: unknown[]) => void logs.push(args.map(String).join(' '));
    return createTestApp(
      {
        logger: { error: log, warn: log, info: () => undefined },
        collections: [{ slug: 'posts', fields: { title: { type: 'text' } } }],
        webhooks: { endpoints: [{ url: receiver.url, secret: receiver.secret, events: ['posts.*'] }] },
      },
      { connection },
    );
  };
  const createsOf = (id: string) => receiver.received.filter((r) => JSON.parse(r.body).data.id === id);

  beforeAll(async () => {
    receiver = await startReceiver();
    connection = await openTestConnection(dbName);
  });

  afterAll(async () => {
    await receiver?.close();
    await closeTestConnection(connection);
  });

  it('is no loss of changes: later changes are delivered, and a restart neither logs a loss nor replays the drop', async () => {
    const first = await start();
    const before = await first.api.local.create('posts', { title: 'before the drop' });
    await until(() => createsOf(before.id).length === 1);
    await connection.db!.collection('other').insertOne({ x: 1 });
    await connection.db!.collection('other').drop();
    const after = await first.api.local.create('posts', { title: 'after the drop' });
    await until(() => createsOf(after.id).length === 1);
    expect(logs.filter((line) => line.includes('lost changes'))).toEqual([]);

    // Nothing of the watched collection comes after this drop.
    await connection.db!.collection('another').insertOne({ x: 1 });
    await connection.db!.collection('another').drop();
    await first.close();

    const second = await start();
    const later = await second.api.local.create('posts', { title: 'after the restart' });
    await until(() => createsOf(later.id).length === 1);
    await second.close();
    expect(logs.filter((line) => line.includes('lost changes'))).toEqual([]);
    expect([before, after].map((post) => createsOf(post.id).length)).toEqual([1, 1]);
  });
});
