// A drop of another collection of the same database is not a loss of the watched collection's changes (the
// test server sends every drop to every stream, without naming its collection): webhooks go on without
// saying "lost changes", and the stream's position moves past the drop even when nothing follows it, so a
// restart does not replay it.
import type { Connection } from 'mongoose';
import { type TestApp, createTestApp } from '../helpers/create-test-app';
import { capabilities, closeTestConnection, describeIf, nextChange, openChangeStream, openTestConnection, uniqueDbName } from '../helpers/test-db';
import { until } from '../helpers/until';
import { type Receiver, startReceiver, waitFor } from './receivers';

const CURSORS = 'content-router.webhook-cursors';

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
    await waitFor(() => createsOf(before.id).length === 1);
    // The drop's own position, as a stream of the watched collection sees it.
    await connection.db!.collection('other').insertOne({ x: 1 });
    const watching = await openChangeStream(connection.db!.collection('posts'));
    await connection.db!.collection('other').drop();
    const drop = await nextChange(watching).finally(() => watching.close());
    expect(drop.operationType).toBe('drop');
    const after = await first.api.local.create('posts', { title: 'after the drop' });
    await waitFor(() => createsOf(after.id).length === 1);
    expect(logs.filter((line) => line.includes('lost changes'))).toEqual([]);

    // Nothing comes after this drop: the stream's position moves past it all the same.
    await connection.db!.collection('another').insertOne({ x: 1 });
    const quiet = await openChangeStream(connection.db!.collection('posts'));
    await connection.db!.collection('another').drop();
    const lastDrop = await nextChange(quiet).finally(() => quiet.close());
    await until(async () => JSON.stringify((await connection.collection(CURSORS).findOne({ _id: 'posts' as never }))?.token) === JSON.stringify(lastDrop._id));
    await first.close();

    const second = await start();
    const later = await second.api.local.create('posts', { title: 'after the restart' });
    await waitFor(() => createsOf(later.id).length === 1);
    await second.close();
    expect(logs.filter((line) => line.includes('lost changes'))).toEqual([]);
    expect([before, after].map((post) => createsOf(post.id).length)).toEqual([1, 1]);
  });
});
