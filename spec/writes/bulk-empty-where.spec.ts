// Bulk writes with a where or filter that is present but empty (a client's
// template that rendered nothing) must not select every record; only where={} says "all".
import request from 'supertest';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';

const admin = asUser({ id: 'a1', role: 'admin' });

describe('bulk writes with an empty where or filter', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({
      collections: [{ slug: 'notes', softDelete: true, fields: { title: { type: 'text' }, views: { type: 'number' } }, access: { read: () => true } }],
    });
  });
  afterAll(() => t.close());
  beforeEach(async () => {
    await t.connection.collection('notes').deleteMany({});
    await request(t.app).post('/api/notes').set(...admin).send({ data: [{ title: 'a', views: 0 }, { title: 'b', views: 0 }] }).expect(201);
  });

  const untouched = async () => {
    const rows = await t.connection.collection('notes').find({}).toArray();
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row.views).toBe(0);
      expect(row.deletedAt ?? null).toBeNull();
    }
  };

  it.each(['where=', 'where=%20%20', 'filter=', 'filter=&filter=', 'where=&filter='])('PATCH ?%s is the 400 of a missing where, nothing written', async (query) => {
    const res = await request(t.app).patch(`/api/notes?${query}`).set(...admin).send({ views: 9 }).expect(400);
    expect(res.type).toBe('application/problem+json');
    expect(res.body.code).toBe('invalid_query');
    expect(res.body.errors).toEqual([{ field: 'where', message: 'is required', code: 'required' }]);
    await untouched();
  });

  it.each(['where=', 'filter=', 'where=&permanent=true'])('DELETE ?%s is the 400 of a missing where, nothing deleted', async (query) => {
    const res = await request(t.app).delete(`/api/notes?${query}`).set(...admin).expect(400);
    expect(res.body.code).toBe('invalid_query');
    await untouched();
  });

  it('an empty where beside a real filter is the filter', async () => {
    const res = await request(t.app).patch('/api/notes?where=&filter=title:a').set(...admin).send({ views: 3 }).expect(200);
    expect(res.body.meta).toEqual({ matched: 1, updated: 1, failed: 0 });
  });

  it('where={} still selects every record', async () => {
    const res = await request(t.app).patch('/api/notes?where={}&dryRun=true').set(...admin).send({ views: 3 }).expect(200);
    expect(res.body.meta).toEqual({ matched: 2 });
  });
});
