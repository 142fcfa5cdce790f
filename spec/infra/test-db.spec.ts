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
      collation: expect.any(Boolean),
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
        expect(ev.fullDocument.title).toBe('streamed');
        expect(String((ev.fullDocument as { _id?: unknown })._id)).toBe(String(insertedId));
      } finally {
        await stream.close();
      }
    },
  );

  itIf(capabilities().changeStreams, 'server does not support change streams')(
    'change streams describe an update as MongoDB does: documentKey { _id }, updatedFields and removedFields',
    async () => {
      const coll = conn.db!.collection('described');
      const { insertedId } = await coll.insertOne({ a: 1, sub: { b: 1, c: 1 }, gone: true });
      const stream = await openChangeStream(coll, [], { fullDocument: 'updateLookup' });
      try {
        await coll.updateOne({ _id: insertedId }, { $set: { a: 2, 'sub.b': 2 }, $unset: { gone: '' } });
        const ev = await nextChange(stream, 5000);
        expect(ev).toMatchObject({
          operationType: 'update',
          ns: { db: conn.db!.databaseName, coll: 'described' },
          documentKey: { _id: insertedId },
          updateDescription: { updatedFields: { a: 2, 'sub.b': 2 }, removedFields: ['gone'] },
          fullDocument: { _id: insertedId, a: 2, sub: { b: 2, c: 1 } },
        });
        await coll.replaceOne({ _id: insertedId }, { z: 1 });
        expect(await nextChange(stream, 5000)).toMatchObject({ operationType: 'replace', documentKey: { _id: insertedId }, fullDocument: { _id: insertedId, z: 1 } });
      } finally {
        await stream.close();
      }
    },
  );

  itIf(capabilities().changeStreams, 'server does not support change streams')(
    "a collection's change stream sees its own drop and not another collection's, as MongoDB's does",
    async () => {
      const own = conn.db!.collection('dropped-own');
      const other = conn.db!.collection('dropped-other');
      await own.insertOne({ a: 1 });
      await other.insertOne({ a: 1 });
      const stream = await openChangeStream(own);
      try {
        await other.drop();
        await own.insertOne({ marker: true });
        expect(await nextChange(stream, 5000)).toMatchObject({ operationType: 'insert', fullDocument: { marker: true } });
        await own.drop();
        expect(await nextChange(stream, 5000)).toMatchObject({ operationType: 'drop', ns: { db: conn.db!.databaseName, coll: 'dropped-own' } });
      } finally {
        await stream.close();
      }
    },
  );

  itIf(capabilities().findAndModifyEvents, 'server does not report findAndModify writes on change streams')(
    'change streams report findOneAndUpdate, findOneAndReplace, an upsert and findOneAndDelete as MongoDB does',
    async () => {
      const coll = conn.db!.collection('modified');
      const { insertedId } = await coll.insertOne({ a: 1, keep: true });
      const stream = await openChangeStream(coll);
      try {
        // The answers are MongoDB's too: the document before the change, unless asked for the one after.
        expect(await coll.findOneAndUpdate({ _id: insertedId }, { $set: { a: 2 }, $unset: { keep: '' } })).toEqual({ _id: insertedId, a: 1, keep: true });
        const updated = await nextChange(stream, 5000);
        expect(updated).toMatchObject({ operationType: 'update', documentKey: { _id: insertedId }, updateDescription: { updatedFields: { a: 2 }, removedFields: ['keep'] } });
        // No fullDocument without updateLookup; none on a delete.
        expect(updated).not.toHaveProperty('fullDocument');

        await coll.findOneAndReplace({ _id: insertedId }, { b: 1 });
        expect(await nextChange(stream, 5000)).toMatchObject({ operationType: 'replace', documentKey: { _id: insertedId }, fullDocument: { _id: insertedId, b: 1 } });

        const upsert = await coll.findOneAndUpdate({ key: 'new' }, { $set: { c: 1 } }, { upsert: true, returnDocument: 'after', includeResultMetadata: true });
        expect(upsert.lastErrorObject).toMatchObject({ n: 1, updatedExisting: false, upserted: upsert.value!._id });
        expect(await nextChange(stream, 5000)).toMatchObject({ operationType: 'insert', documentKey: { _id: upsert.value!._id }, fullDocument: { key: 'new', c: 1 } });

        expect(await coll.findOneAndDelete({ _id: insertedId })).toEqual({ _id: insertedId, b: 1 });
        const deleted = await nextChange(stream, 5000);
        expect(deleted).toMatchObject({ operationType: 'delete', documentKey: { _id: insertedId } });
        expect(deleted).not.toHaveProperty('fullDocument');

        // A findOneAndUpdate that matches nothing changes nothing, and says so.
        const none = await coll.findOneAndUpdate({ key: 'absent' }, { $set: { c: 2 } }, { includeResultMetadata: true });
        expect(none).toMatchObject({ value: null, lastErrorObject: { n: 0, updatedExisting: false } });
        await coll.insertOne({ marker: true });
        expect(await nextChange(stream, 5000)).toMatchObject({ operationType: 'insert', fullDocument: { marker: true } });
      } finally {
        await stream.close();
      }
    },
  );
});
