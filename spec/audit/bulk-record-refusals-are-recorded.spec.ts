// A record a bulk write could not write because another writer changed it first (409, reported in the
// answer's `errors`) is a refused write of that record in the audit log, as a single write of it would
// be; the records written are recorded as changes. The other writer is a plain driver write made at the
// last moment before the bulk write's first command (a Mongoose plugin's pre hook), so the race is the
// same on every run.
import mongoose from 'mongoose';
import request from 'supertest';
import type { AuditEntry } from '../../lib/audit/audit-entry';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';
import { eventually, quietFor } from '../helpers/eventually';

const admin = asUser({ id: 'a1', role: 'admin' });
const open = { read: () => true, create: () => true, update: () => true, delete: () => true };

/** What the other writer does just before the bulk write's command; cleared after each test. */
let interloper: (() => Promise<void>) | undefined;

/** The other writer's write once started: every command of the bulk write waits for it (they run concurrently). */
let interloping: Promise<void> | undefined;

function raceBefore(schema: mongoose.Schema): void {
  schema.pre(['findOneAndUpdate', 'findOneAndDelete'] as never, async function racing() {
    const run = interloper;
    interloper = undefined;
    if (run) interloping = run();
    // The bulk write stores its records concurrently: none of its commands may reach the server before the
    // other writer's change has, or the race would depend on which command the server saw first.
    if (interloping) await interloping;
  });
}

describe('a bulk write racing another writer', () => {
  let t: TestApp;

  beforeAll(async () => {
    mongoose.plugin(raceBefore);
    t = await createTestApp({ collections: [{ slug: 'plain', access: open, fields: { title: { type: 'text' }, score: { type: 'number' } } }], audit: {} });
  });
  afterAll(async () => {
    const { plugins } = mongoose as unknown as { plugins: Array<[unknown]> };
    plugins.splice(plugins.findIndex(([plugin]) => plugin === raceBefore), 1);
    await t.close();
  });

  const refusals = async () =>
    (await t.connection.collection('content-router.audit').find({ 'outcome.status': 409 }, { projection: { _id: 0 } }).toArray()) as unknown as Array<Omit<AuditEntry, 'id'>>;

  for (const [method, action] of [['patch', 'update'], ['delete', 'delete']] as const) {
    it(`records the record another writer moved as a refused ${action} of it, once`, async () => {
      await t.connection.collection('plain').deleteMany({});
      const seeded = await request(t.app).post('/api/plain').set(...admin).send({ data: [{ title: 'a' }, { title: 'b' }] }).expect(201);
      const moved = seeded.body.data[1].id as string;
      await t.connection.collection('content-router.audit').deleteMany({});
      interloping = undefined;
      interloper = async () => {
        await t.connection.collection('plain').updateOne({ _id: new mongoose.Types.ObjectId(moved) }, { $set: { title: 'by another' }, $inc: { _rev: 1 } });
      };
      const res = await request(t.app)[method]('/api/plain?where={}').set(...admin).send(method === 'patch' ? { score: 5 } : undefined).expect(200);
      expect(res.body.errors).toEqual([expect.objectContaining({ id: moved, status: 409 })]);

      await eventually(async () => expect(await refusals()).toHaveLength(1));
      await quietFor(150);
      expect(await refusals()).toEqual([
        expect.objectContaining({ action, actor: { type: 'host', id: 'a1' }, resource: { collection: 'plain', id: moved }, outcome: { status: 409, code: 'write_conflict' } }),
      ]);
      // The other record was written, and recorded as such.
      expect(await t.connection.collection('content-router.audit').countDocuments({ action, 'outcome.status': 200 })).toBe(1);
    });
  }
});
