// A change and its entry: where the server has transactions they commit or roll back together, so a write
// whose entry cannot be stored is not stored either (the caller gets the error); without transactions the
// change is stored before its entry (written behind, in a batch), so it stands and the missing entry is
// logged, while the other entries of its batch are stored.
import request from 'supertest';
import { type TestApp, createTestApp } from '../helpers/create-test-app';
import { until } from '../helpers/eventually';
import { capabilities } from '../helpers/test-db';

const open = { read: () => true, create: () => true, update: () => true, delete: () => true };

describe('a change whose entry cannot be stored', () => {
  let t: TestApp;
  const errors: string[] = [];
  beforeAll(async () => {
    t = await createTestApp({
      collections: [{ slug: 'posts', access: open, fields: { title: { type: 'text' } } }],
      logger: { error: (...args: unknown[]) => void errors.push(args.map(String).join(' ')), warn: () => undefined, info: () => undefined },
      audit: {},
    });
    // One entry per action at most: the second create's entry is refused by the database.
    await t.connection.collection('content-router.audit').createIndex({ action: 1 }, { unique: true, name: 'one_per_action' });
    await request(t.app).post('/api/posts').send({ title: 'first' }).expect(201);
    await t.api.audit?.find({ limit: 1 });
  });
  afterAll(async () => t.close());

  it(capabilities().transactions ? 'is rolled back with it (transactions)' : 'stands, and the missing entry is logged (no transactions)', async () => {
    const res = await request(t.app).post('/api/posts').send({ title: 'second' });
    const stored = await t.connection.collection('posts').countDocuments({ title: 'second' });
    if (capabilities().transactions) {
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(stored).toBe(0);
    } else {
      expect(res.status).toBe(201);
      expect(stored).toBe(1);
      await until(() => errors.join('\n').includes('could not store the audit entry of a create of posts'), 5000, 'the lost entry logged');
    }
    expect((await t.api.audit?.find())?.data).toHaveLength(1);
  });
});
