// Bulk writes racing other writers: a record another writer changes between the selection and the write
// is reported as a 409 and keeps the other writer's change (never overwritten), while the rest are written
// and answered as written; likewise for soft and permanent deletes, and for records each given their own
// change by a hook. The other writer is a plain driver write made at the last moment before the bulk
// write's first command (a Mongoose plugin's pre hook), so the race is the same on every run.
import mongoose from 'mongoose';
import request from 'supertest';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';
import { supportsTransactions } from '../../lib/operations/write/transaction';

const admin = asUser({ id: 'a1', role: 'admin' });

/** What the other writer does just before the bulk write's command; cleared after each test. */
let interloper: (() => Promise<void>) | undefined;

/** The other writer's write once started: every command of the bulk write waits for it (they run concurrently). */
let interloping: Promise<void> | undefined;

function raceBefore(schema: mongoose.Schema): void {
  schema.pre(['findOneAndUpdate', 'findOneAndDelete', 'updateMany', 'deleteMany', 'bulkWrite'] as never, async function racing() {
    const run = interloper;
    interloper = undefined;
    if (run) interloping = run();
    // A bulk write stores several records at once: none of its commands may reach the server before the other
    // writer's change has, or the race would depend on which command the server saw first.
    if (interloping) await interloping;
  });
}

describe('bulk writes racing another writer', () => {
  let t: TestApp;
  let transactions = false;
  const afterChange: string[] = [];

  beforeAll(async () => {
    mongoose.plugin(raceBefore);
    const fields = { title: { type: 'text', required: true }, score: { type: 'number' } } as const;
    const open = { read: () => true, create: () => true, update: () => true, delete: () => true };
    t = await createTestApp({
      collections: [
        { slug: 'plain', access: open, fields },
        { slug: 'soft', access: open, fields, softDelete: true },
        {
          slug: 'hooked',
          access: open,
          fields,
          hooks: {
            beforeChange: [({ data }) => ({ ...data, score: Number(data.score) + 1 })],
            afterChange: [({ doc }) => void afterChange.push(String(doc.title))],
          },
        },
        { slug: 'coded', access: open, fields: { ...fields, code: { type: 'text', unique: true } } },
      ],
    });
    transactions = await supportsTransactions(t.connection);
  });
  afterAll(async () => {
    const { plugins } = mongoose as unknown as { plugins: Array<[unknown]> };
    plugins.splice(plugins.findIndex(([plugin]) => plugin === raceBefore), 1);
    await t.close();
  });
  beforeEach(() => {
    interloper = undefined;
    interloping = undefined;
    afterChange.length = 0;
  });

  const seed = async (slug: string, titles: string[]) => {
    await t.connection.collection(slug).deleteMany({});
    const res = await request(t.app).post(`/api/${slug}`).set(...admin).send({ data: titles.map((title) => ({ title, score: 0 })) }).expect(201);
    return Object.fromEntries((res.body.data as Array<{ id: string; title: string }>).map((r) => [r.title, r.id]));
  };
  const row = (slug: string, id: string) => t.connection.collection(slug).findOne({ _id: new mongoose.Types.ObjectId(id) });
  /** Another writer's change to one record, moving its revision as every write through Mongoose does. */
  const otherWriter = (slug: string, id: string, set: Record<string, unknown>) => async () => {
    await t.connection.collection(slug).updateOne({ _id: new mongoose.Types.ObjectId(id) }, { $set: set, $inc: { _rev: 1 } });
  };

  it('a shared change: the record another writer moved is a 409 keeping its change; the others are written', async () => {
    const ids = await seed('plain', ['a', 'b', 'c']);
    interloper = otherWriter('plain', ids.b, { title: 'b by another' });
    const res = await request(t.app).patch('/api/plain?where={}').set(...admin).send({ score: 5 }).expect(200);
    expect(res.body.meta).toEqual({ matched: 3, updated: 2, failed: 1 });
    expect(res.body.errors).toEqual([{ id: ids.b, status: 409, code: 'write_conflict', message: expect.stringMatching(/changed/) }]);
    expect(res.body.data.map((r: { title: string; score: number }) => [r.title, r.score]).sort()).toEqual([['a', 5], ['c', 5]]);
    expect(await row('plain', ids.b)).toMatchObject({ title: 'b by another', score: 0 });
    expect(await row('plain', ids.a)).toMatchObject({ score: 5, _rev: 2 });
  });

  it('answers each record exactly as stored after the write (revision, stamp and ETag of a later GET)', async () => {
    const ids = await seed('plain', ['a']);
    const res = await request(t.app).patch('/api/plain?where={}').set(...admin).send({ score: 7 }).expect(200);
    const got = await request(t.app).get(`/api/plain/${ids.a}`).set(...admin).expect(200);
    expect(res.body.data[0]).toEqual(got.body);
    expect((await row('plain', ids.a))?.updatedAt.toISOString()).toBe(res.body.data[0].updatedAt);
  });

  it('changes given per record by a hook: the moved record is a 409, its afterChange does not run', async () => {
    const ids = await seed('hooked', ['a', 'b']);
    afterChange.length = 0;
    interloper = otherWriter('hooked', ids.a, { score: 40 });
    const res = await request(t.app).patch('/api/hooked?where={}').set(...admin).send({ score: 1 }).expect(200);
    expect(res.body.meta).toEqual({ matched: 2, updated: 1, failed: 1 });
    expect(res.body.errors.map((e: { id: string; status: number }) => [e.id, e.status])).toEqual([[ids.a, 409]]);
    expect(res.body.data).toEqual([expect.objectContaining({ id: ids.b, score: 2 })]);
    expect(afterChange).toEqual(['b']);
    expect(await row('hooked', ids.a)).toMatchObject({ score: 40 });
  });

  it('a soft delete: the record moved meanwhile stays live and is reported', async () => {
    const ids = await seed('soft', ['a', 'b']);
    interloper = otherWriter('soft', ids.b, { title: 'b by another' });
    const res = await request(t.app).delete('/api/soft?where={}').set(...admin).expect(200);
    expect(res.body.meta).toEqual({ matched: 2, deleted: 1, failed: 1 });
    expect(res.body.data).toEqual([{ id: ids.a }]);
    expect(res.body.errors).toEqual([expect.objectContaining({ id: ids.b, status: 409, code: 'write_conflict' })]);
    expect((await row('soft', ids.a))?.deletedAt).toBeInstanceOf(Date);
    expect(await row('soft', ids.b)).toMatchObject({ deletedAt: null, title: 'b by another' });
  });

  it('a permanent delete: the record moved meanwhile is kept and reported', async () => {
    const ids = await seed('plain', ['a', 'b']);
    interloper = otherWriter('plain', ids.a, { score: 9 });
    const res = await request(t.app).delete('/api/plain?where={}').set(...admin).expect(200);
    expect(res.body.meta).toEqual({ matched: 2, deleted: 1, failed: 1 });
    expect(res.body.data).toEqual([{ id: ids.b }]);
    expect(await row('plain', ids.a)).toMatchObject({ score: 9 });
    expect(await row('plain', ids.b)).toBeNull();
  });

  it('a unique value set on many records is refused whole (409 naming the records after the first), nothing written', async () => {
    const ids = await seed('coded', ['a', 'b', 'c']);
    const res = await request(t.app).patch('/api/coded?where={}').set(...admin).send({ code: 'X' }).expect(409);
    expect(res.body.code).toBe('unique_conflict');
    expect(res.body.errors).toEqual([ids.b, ids.c].map((id) => ({ id, field: 'code', message: 'code must be unique', code: 'unique' })));
    expect(await t.connection.collection('coded').countDocuments({ code: 'X' })).toBe(0);
  });
});
