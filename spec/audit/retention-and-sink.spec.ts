// The store's indexes exist from the start (time, resource, actor) and `retention` is a TTL index on `at`
// (the test server does not expire documents: the index is checked, not the expiry), remade when the
// retention changes; the sink gets each entry once it is stored, and a failing or hanging sink never fails
// nor delays a write, its failures logged once per burst.
import request from 'supertest';
import type { AuditEntry } from '../../lib/audit/audit-entry';
import { type TestApp, createTestApp } from '../helpers/create-test-app';
import { until } from '../helpers/eventually';

const open = { read: () => true, create: () => true, update: () => true, delete: () => true };
const collections = [{ slug: 'posts', access: open, fields: { title: { type: 'text' as const } } }];

async function indexes(t: TestApp) {
  return t.connection.collection('content-router.audit').indexes();
}

describe('the audit store', () => {
  it('has its time, resource and actor indexes, and a TTL index for retention, remade when it changes', async () => {
    const t = await createTestApp({ collections, audit: {} });
    try {
      const byName = Object.fromEntries((await indexes(t)).map((index) => [index.name, index]));
      expect(byName.at).toMatchObject({ key: { at: 1 }, expireAfterSeconds: 90 * 24 * 3600 });
      expect(byName.at_id.key).toEqual({ at: -1, _id: -1 });
      expect(byName.resource.key).toEqual({ 'resource.collection': 1, 'resource.id': 1, at: -1, _id: -1 });
      expect(byName.resource_global.key).toEqual({ 'resource.global': 1, at: -1, _id: -1 });
      expect(byName.actor.key).toEqual({ 'actor.id': 1, at: -1, _id: -1 });

      const keepAll = await createTestApp({ collections, audit: { retention: 0 } }, { connection: t.connection });
      await keepAll.close();
      const kept = (await indexes(t)).find((index) => index.name === 'at');
      expect(kept?.key).toEqual({ at: 1 });
      expect(kept?.expireAfterSeconds).toBeUndefined();

      const day = await createTestApp({ collections, audit: { retention: '1d' } }, { connection: t.connection });
      await day.close();
      expect((await indexes(t)).find((index) => index.name === 'at')?.expireAfterSeconds).toBe(86_400);
    } finally {
      await t.close();
    }
  });
});

describe('the sink', () => {
  it('gets each entry once it is stored, with its id', async () => {
    const heard: Array<{ entry: AuditEntry; stored: boolean }> = [];
    let t: TestApp | undefined;
    t = await createTestApp({
      collections,
      audit: {
        sink: async (entry) => {
          const row = await t?.connection.collection('content-router.audit').findOne({ action: entry.action, 'resource.id': entry.resource.id });
          heard.push({ entry, stored: row?._id.toHexString() === entry.id });
        },
      },
    });
    try {
      const created = await request(t.app).post('/api/posts').send({ title: 'a' }).expect(201);
      await request(t.app).delete(`/api/posts/${created.body.id}`).expect(200);
      await until(() => heard.length === 2, 5000, 'both entries sunk');
      expect(heard.map(({ entry, stored }) => [entry.action, entry.resource.id, stored])).toEqual([
        ['create', created.body.id, true],
        ['delete', created.body.id, true],
      ]);
    } finally {
      await t.close();
    }
  });

  it('never fails nor holds up a write: a throwing sink is logged once per burst, a hanging one is not waited for', async () => {
    const warnings: string[] = [];
    const logger = { error: () => undefined, warn: (...args: unknown[]) => void warnings.push(args.map(String).join(' ')), info: () => undefined };
    let calls = 0;
    const failing = await createTestApp({
      collections,
      logger,
      audit: {
        sink: () => {
          calls += 1;
          throw new Error('SIEM down');
        },
      },
    });
    try {
      for (const title of ['a', 'b', 'c']) await request(failing.app).post('/api/posts').send({ title }).expect(201);
      await until(() => calls === 3, 5000, 'three sink calls');
      await until(() => warnings.length > 0, 5000, 'a warning');
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain('SIEM down');
      expect(await failing.connection.collection('content-router.audit').countDocuments()).toBe(3);
    } finally {
      await failing.close();
    }

    const hanging = await createTestApp({ collections, audit: { sink: () => new Promise<void>(() => undefined) } });
    try {
      const started = performance.now();
      for (const title of ['a', 'b', 'c']) await request(hanging.app).post('/api/posts').send({ title }).expect(201);
      // Three writes with the sink never answering: answered as without one (nowhere near its 5 s bound).
      expect(performance.now() - started).toBeLessThan(4000);
    } finally {
      await hanging.close();
    }
  });
});
