// The cache sees writes it did not make: a write straight through the driver, and a second router on the
// same database, reach it through the change feed (polled with a bounded wait: events arrive soon, not at once).
import request from 'supertest';
import { Types } from 'mongoose';
import { createTestApp, type TestApp } from '../helpers/create-test-app';
import { capabilities, describeIf, itIf, openTestConnection } from '../helpers/test-db';
import { eventually } from '../helpers/eventually';

const config = {
  collections: [
    {
      slug: 'posts',
      cache: { ttl: 600 },
      fields: { title: { type: 'text' as const, required: true } },
      access: { read: () => true, create: () => true, update: () => true, delete: () => true },
    },
  ],
};

const titles = (body: { data: Array<{ title: string }> }) => body.data.map((d) => d.title).sort();

describeIf(capabilities().changeStreams, 'the server has no change streams')('writes made elsewhere', () => {
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    a = await createTestApp(config);
    // A second router, on its own connection, to the same database: another instance of the service.
    const other = await openTestConnection(a.connection.name);
    b = await createTestApp(config, { connection: other });
  });

  afterAll(async () => {
    await b?.api.close();
    await b?.connection.close();
    await a?.close();
  });

  /** GETs until a HIT: the list is cached in router `t`. */
  const cached = (t: TestApp, path: string) =>
    eventually(async () => {
      const res = await request(t.app).get(`/api${path}`);
      expect(res.headers['x-cache']).toBe('HIT');
      return res;
    });

  it('a document inserted through the driver shows in a cached list once its event arrives', async () => {
    const before = await cached(a, '/posts?sort=title');
    expect(titles(before.body)).not.toContain('from the driver');
    await a.connection.db!.collection('posts').insertOne({ title: 'from the driver', createdAt: new Date(), updatedAt: new Date() });
    const after = await eventually(async () => {
      const res = await request(a.app).get('/api/posts?sort=title');
      expect(titles(res.body)).toContain('from the driver');
      return res;
    });
    expect(after.status).toBe(200);
  });

  it('a record deleted through the driver stops being served from the cache', async () => {
    const { insertedId } = await a.connection.db!.collection('posts').insertOne({ title: 'short-lived', createdAt: new Date(), updatedAt: new Date() });
    const path = `/posts/${insertedId.toHexString()}`;
    await eventually(async () => expect((await request(a.app).get(`/api${path}`)).status).toBe(200));
    await cached(a, path);
    await a.connection.db!.collection('posts').deleteOne({ _id: insertedId });
    await eventually(async () => expect((await request(a.app).get(`/api${path}`)).status).toBe(404));
  });

  it('two routers on one database see each other’s creates', async () => {
    await cached(a, '/posts?perPage=50');
    await cached(b, '/posts?perPage=50');
    const created = await request(b.app).post('/api/posts').send({ title: 'written by b' });
    expect(created.status).toBe(201);
    await eventually(async () => expect(titles((await request(a.app).get('/api/posts?perPage=50')).body)).toContain('written by b'));
  });

  // The router deletes and updates with findOneAndDelete/findOneAndUpdate (one atomic step that also
  // returns the record); some MongoDB emulations do not report those on change streams.
  itIf(capabilities().findAndModifyEvents, 'the server does not report findOneAndDelete/findOneAndUpdate on change streams')(
    'two routers on one database see each other’s deletes and updates',
    async () => {
      const created = await request(b.app).post('/api/posts').send({ title: 'to go' });
      const path = `/posts/${created.body.id}`;
      await eventually(async () => expect((await request(a.app).get(`/api${path}`)).status).toBe(200));
      await cached(a, path);
      expect((await request(b.app).patch(`/api${path}`).send({ title: 'patched by b' })).status).toBe(200);
      await eventually(async () => expect((await request(a.app).get(`/api${path}`)).body.title).toBe('patched by b'));
      expect((await request(b.app).delete(`/api${path}`)).status).toBe(200);
      await eventually(async () => expect((await request(a.app).get(`/api${path}`)).status).toBe(404));
      await eventually(async () => expect(titles((await request(a.app).get('/api/posts?perPage=50')).body)).not.toContain('to go'));
    },
  );

  it('an update made by another router reaches the cache where the server reports it', async () => {
    const created = await request(b.app).post('/api/posts').send({ title: 'before' });
    const path = `/posts/${created.body.id}`;
    await eventually(async () => expect((await request(a.app).get(`/api${path}`)).status).toBe(200));
    await cached(a, path);
    // updateOne is reported by every server with change streams (the update operation's findOneAndUpdate is
    // not, on some emulations); both are ordinary writes to the database.
    await b.connection.db!.collection('posts').updateOne({ _id: new Types.ObjectId(String(created.body.id)) }, { $set: { title: 'after' } });
    await eventually(async () => expect((await request(a.app).get(`/api${path}`)).body.title).toBe('after'));
  });
});
