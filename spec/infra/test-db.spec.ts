/** Proves the test database infrastructure: global setup, per-file connections, capability probes. */
import type { Connection } from 'mongoose';

import {
  capabilities,
  closeTestConnection,
  detectCapabilities,
  itIf,
  nextChange,
  openChangeStream,
  openTestConnection,
} from '../helpers/test-db';
import type { DbCapabilities } from '../helpers/test-db';

describe('test database infrastructure', () => {
  let conn: Connection;
  let other: Connection | undefined;

  beforeAll(async () => {
    conn = await openTestConnection();
  });

  afterAll(async () => {
    await closeTestConnection(other);
    await closeTestConnection(conn);
  });

  test('global setup exported MONGODB_URI and capabilities', () => {
    expect(process.env.MONGODB_URI).toMatch(/^mongodb(\+srv)?:\/\//);
    const caps = capabilities();
    expect(typeof caps.transactions).toBe('boolean');
    expect(typeof caps.textSearch).toBe('boolean');
    expect(typeof caps.changeStreams).toBe('boolean');
  });

  test('uses its own (non-default) connection to a uniquely named database', () => {
    expect(conn.readyState).toBe(1);
    expect(conn.name).toMatch(/_db_\d+_[0-9a-f]{12}$/);
  });

  test('inserts and reads back a document', async () => {
    const coll = conn.collection<{ title: string; n: number; tags: string[] }>('things');
    const { insertedId } = await coll.insertOne({ title: 'hello', n: 42, tags: ['a', 'b'] });
    const found = await coll.findOne({ _id: insertedId });
    expect(found).toMatchObject({ title: 'hello', n: 42, tags: ['a', 'b'] });
    expect(found?._id.toString()).toBe(insertedId.toString());
    expect(await coll.countDocuments()).toBe(1);
  });

  test('each connection gets its own database', async () => {
    other = await openTestConnection();
    expect(other.name).not.toBe(conn.name);
    await other.collection('things').insertOne({ title: 'elsewhere' });
    expect(await other.collection('things').countDocuments()).toBe(1);
    expect(await conn.collection('things').countDocuments({ title: 'elsewhere' })).toBe(0);
  });

  test('detectCapabilities probes the server and caches the result', async () => {
    const caps: DbCapabilities = await detectCapabilities(conn);
    expect(caps).toEqual({
      transactions: expect.any(Boolean),
      textSearch: expect.any(Boolean),
      changeStreams: expect.any(Boolean),
      findAndModifyEvents: expect.any(Boolean),
      explain: expect.any(Boolean),
    });
    // agrees with the global setup's probe of the same server
    expect(caps).toEqual(capabilities());
    // cached: same promise, no re-probe
    expect(detectCapabilities(conn)).toBe(detectCapabilities(conn));
    // probes cleaned up after themselves
    const names = (await conn.db!.listCollections().toArray()).map((c) => c.name);
    expect(names.filter((n) => n.startsWith('__probe_'))).toEqual([]);
  });

  itIf(capabilities().changeStreams, 'server does not support change streams')(
    'change streams deliver an insert event',
    async () => {
      const coll = conn.db!.collection<{ title: string }>('watched');
      const stream = await openChangeStream(coll);
      try {
        const { insertedId } = await coll.insertOne({ title: 'streamed' });
        const ev = await nextChange(stream, 5000);
        expect(ev.operationType).toBe('insert');
        if (ev.operationType !== 'insert') return;
        // mongo-java-server: take the id from fullDocument (its update events' documentKey is wrong)
        expect(ev.fullDocument.title).toBe('streamed');
        expect(String((ev.fullDocument as { _id?: unknown })._id)).toBe(String(insertedId));
      } finally {
        await stream.close();
      }
    },
  );
});
