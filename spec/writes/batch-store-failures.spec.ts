// A batch create whose item loses a unique value to another writer after the batch was checked (between
// the prepare and the store stages): where the server has transactions nothing of the batch is written and
// the answer is a 409 naming the item; without, that item is reported in `errors` as its 409 and the
// others are created, each with its change event and afterChange once. The other writer inserts at the
// last moment before the item's own insert (a Mongoose plugin's pre-save hook), so the race is the same on
// every run.
import mongoose from 'mongoose';
import request from 'supertest';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';
import { capabilities, itIf } from '../helpers/test-db';

const admin = asUser({ id: 'a1', role: 'admin' });

/** Before the insert of the record with this code, another writer takes the code. */
let takeCodeBefore: string | undefined;
let connection: mongoose.Connection | undefined;

function raceBeforeSave(schema: mongoose.Schema): void {
  schema.pre('save', async function racing() {
    const code = (this as unknown as { code?: string }).code;
    if (!takeCodeBefore || code !== takeCodeBefore || !connection) return;
    takeCodeBefore = undefined;
    await connection.collection('coded').insertOne({ title: 'by another', code, _rev: 1 });
  });
}

describe('a batch create losing a unique value after its checks', () => {
  let t: TestApp;
  const afterChange: string[] = [];

  beforeAll(async () => {
    mongoose.plugin(raceBeforeSave);
    const open = { read: () => true, create: () => true, update: () => true, delete: () => true };
    t = await createTestApp({
      collections: [
        {
          slug: 'coded',
          access: open,
          fields: { title: { type: 'text', required: true }, code: { type: 'text', unique: true } },
          hooks: { afterChange: [({ doc }) => void afterChange.push(String(doc.code))] },
        },
      ],
    });
    connection = t.connection;
  });
  afterAll(async () => {
    const { plugins } = mongoose as unknown as { plugins: Array<[unknown]> };
    plugins.splice(plugins.findIndex(([plugin]) => plugin === raceBeforeSave), 1);
    await t.close();
  });

  itIf(!capabilities().transactions, 'without transactions each item stands alone')('without transactions: the item is a 409 in errors, the others are created', async () => {
    takeCodeBefore = 'B';
    const res = await request(t.app).post('/api/coded').set(...admin).send({ data: [{ title: 'a', code: 'A' }, { title: 'b', code: 'B' }, { title: 'c', code: 'C' }] }).expect(201);
    expect(res.body.data.map((r: { code: string }) => r.code)).toEqual(['A', 'C']);
    expect(res.body.errors).toEqual([{ index: 1, status: 409, code: 'unique_conflict', message: expect.stringMatching(/code/) }]);
    expect(afterChange.sort()).toEqual(['A', 'C']);
    const stored = await t.connection.collection('coded').find({}, { projection: { title: 1, code: 1, _id: 0 } }).sort({ code: 1 }).toArray();
    expect(stored).toEqual([{ title: 'a', code: 'A' }, { title: 'by another', code: 'B' }, { title: 'c', code: 'C' }]);
  });

  itIf(capabilities().transactions, 'needs transactions')('with transactions: nothing of the batch is written, a 409 names the item', async () => {
    await t.connection.collection('coded').deleteMany({});
    takeCodeBefore = 'Y';
    const res = await request(t.app).post('/api/coded').set(...admin).send({ data: [{ title: 'x', code: 'X' }, { title: 'y', code: 'Y' }] }).expect(409);
    expect(res.body.errors).toEqual([expect.objectContaining({ index: 1, field: 'code' })]);
    expect(await t.connection.collection('coded').countDocuments({ title: { $ne: 'by another' } })).toBe(0);
  });
});
