// Racing bulk writes of the same records: every record is reported, hooked and published exactly once, by
// the request whose write changed it; each other request names it in `errors` as a 409 write_conflict.
// Requests are sent together, so their selections overlap with each other's writes (the race the issue's
// attack found: two bulk DELETEs of 30 records each answered `deleted: 30`).
import mongoose from 'mongoose';
import request from 'supertest';
import * as changeBus from '../../lib/changes/change-bus';
import type { ChangeEvent } from '../../lib/changes/change-bus';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';

const admin = asUser({ id: 'a1', role: 'admin' });

interface BulkAnswer {
  data: Array<{ id: string }>;
  meta: { matched: number; updated?: number; deleted?: number; failed?: number };
  errors: Array<{ id: string; status: number; code: string }>;
}

describe('racing bulk writes: each record written, hooked and published once', () => {
  let t: TestApp;
  const events: ChangeEvent[] = [];
  const afterChange: string[] = [];
  const afterDelete: string[] = [];

  beforeAll(async () => {
    // The router's own change bus, to count what subscribers hear (no database double: the bus is wrapped).
    const create = changeBus.createChangeBus;
    const spy = jest.spyOn(changeBus, 'createChangeBus').mockImplementation((logger) => {
      const bus = create(logger);
      bus.onChange((event) => events.push(event));
      return bus;
    });
    const fields = { title: { type: 'text', required: true }, score: { type: 'number' } } as const;
    const open = { read: () => true, create: () => true, update: () => true, delete: () => true };
    const hooks = {
      afterChange: [({ doc, operation }: { doc: Record<string, unknown>; operation: string }) => void (operation === 'update' && afterChange.push(String(doc.id)))],
      afterDelete: [({ id }: { id: string }) => void afterDelete.push(id)],
    };
    t = await createTestApp({
      collections: [
        { slug: 'plain', access: open, fields, hooks },
        { slug: 'soft', access: open, fields, hooks, softDelete: true },
      ],
    });
    spy.mockRestore();
  });
  afterAll(() => t.close());

  const seed = async (slug: string, n: number): Promise<string[]> => {
    await t.connection.collection(slug).deleteMany({});
    const res = await request(t.app).post(`/api/${slug}`).set(...admin).send({ data: Array.from({ length: n }, (_, i) => ({ title: `r${i}`, score: 0 })) }).expect(201);
    events.length = 0;
    afterChange.length = 0;
    afterDelete.length = 0;
    return (res.body.data as Array<{ id: string }>).map((r) => r.id);
  };
  const count = (list: readonly string[]) => list.reduce((m, id) => m.set(id, (m.get(id) ?? 0) + 1), new Map<string, number>());
  const eventIds = (type: ChangeEvent['type'], slug: string) => events.filter((e) => e.type === type && e.slug === slug).flatMap((e) => e.ids);
  const together = <T>(n: number, send: (i: number) => Promise<T>) => Promise.all(Array.from({ length: n }, (_, i) => send(i)));

  /** Each answer accounts for every record it selected: written, or a 409 naming it. */
  const accountsForAll = (answer: BulkAnswer, key: 'updated' | 'deleted') => {
    expect(answer.meta[key]).toBe(answer.data.length);
    expect((answer.meta[key] ?? 0) + answer.errors.length).toBe(answer.meta.matched);
    for (const error of answer.errors) expect(error).toMatchObject({ status: 409, code: 'write_conflict' });
  };

  for (const slug of ['plain', 'soft']) {
    it(`three bulk DELETEs of the same 30 ${slug} records: 30 deletes answered, 30 afterDelete, 30 events`, async () => {
      for (let round = 0; round < 3; round++) {
        const ids = await seed(slug, 30);
        const answers = await together(3, () => request(t.app).delete(`/api/${slug}?where={}`).set(...admin).expect(200));
        const bodies = answers.map((res) => res.body as BulkAnswer);
        for (const body of bodies) accountsForAll(body, 'deleted');
        const deleted = bodies.flatMap((body) => body.data.map((r) => r.id));
        expect(deleted.sort()).toEqual([...ids].sort());
        expect([...count(afterDelete).values()].every((n) => n === 1)).toBe(true);
        expect(afterDelete.sort()).toEqual([...ids].sort());
        expect(eventIds('delete', slug).sort()).toEqual([...ids].sort());
      }
    });
  }

  it('three identical bulk PATCHes of 20 records: afterChange and events once per real write', async () => {
    for (let round = 0; round < 3; round++) {
      const ids = await seed('plain', 20);
      const answers = await together(3, () => request(t.app).patch('/api/plain?where={}').set(...admin).send({ score: 5 }).expect(200));
      const bodies = answers.map((res) => res.body as BulkAnswer);
      for (const body of bodies) accountsForAll(body, 'updated');
      const updated = bodies.flatMap((body) => body.data.map((r) => r.id));
      // Every real write moved a revision once: the writes the answers report are exactly those.
      const rows = await t.connection.collection('plain').find({ _id: { $in: ids.map((id) => new mongoose.Types.ObjectId(id)) } }).toArray();
      const writes = rows.reduce((sum, row) => sum + (Number(row._rev) - 1), 0);
      expect(updated).toHaveLength(writes);
      expect(afterChange.sort()).toEqual([...updated].sort());
      expect(eventIds('update', 'plain').sort()).toEqual([...updated].sort());
    }
  });

  it('a single DELETE racing a bulk DELETE: afterDelete once per record, the loser answers 404 or a 409 in errors', async () => {
    for (let round = 0; round < 5; round++) {
      const ids = await seed('plain', 10);
      const [bulk, single] = await Promise.all([
        request(t.app).delete('/api/plain?where={}').set(...admin).expect(200),
        request(t.app).delete(`/api/plain/${ids[round]}`).set(...admin),
      ]);
      expect([204, 200, 404]).toContain(single.status);
      const body = bulk.body as BulkAnswer;
      accountsForAll(body, 'deleted');
      const bySingle = single.status === 404 ? [] : [ids[round]];
      expect([...body.data.map((r) => r.id), ...bySingle].sort()).toEqual([...ids].sort());
      expect(afterDelete.sort()).toEqual([...ids].sort());
      expect(eventIds('delete', 'plain').sort()).toEqual([...ids].sort());
    }
  });
});
