// The change stream's echo of this router's own write arrives after the write already dropped what it made
// stale: it must not drop again the entries filled since. Another writer's change still drops them, even
// right after ours, and so does a delete by another writer after this router deleted, restored or re-created
// the record. The stream delivers one collection's changes in order, so once a later driver write to a
// sentinel record has reached the cache, every earlier echo has too.
import request from 'supertest';
import { Types } from 'mongoose';
import { createTestApp, type TestApp } from '../helpers/create-test-app';
import { capabilities, describeIf, itIf } from '../helpers/test-db';
import { eventually } from '../helpers/eventually';

let t: TestApp;
/** A record per collection: each collection has its own stream. */
const sentinels: Record<string, string> = {};
const get = (path: string) => request(t.app).get(`/api${path}`);
const posts = () => t.connection.db!.collection('posts');

describeIf(capabilities().changeStreams, 'the server has no change streams')('echoes of this router’s writes', () => {
  beforeAll(async () => {
    t = await createTestApp({
      collections: [
        {
          slug: 'posts',
          cache: { ttl: 600 },
          fields: { title: { type: 'text', required: true } },
          access: { read: () => true, create: () => true, update: () => true, delete: () => true },
        },
        {
          slug: 'notes',
          softDelete: true,
          cache: { ttl: 600 },
          fields: { title: { type: 'text', required: true } },
          access: { read: () => true, create: () => true, update: () => true, delete: () => true },
        },
      ],
    });
    for (const slug of ['posts', 'notes']) sentinels[slug] = (await t.api.local.create(slug, { title: 'sentinel 0' })).id;
  });

  afterAll(async () => {
    await t?.close();
  });

  afterEach(() => expect(t.hostErrors).toEqual([]));

  let round = 0;
  /**
   * Writes the collection's sentinel through the driver and waits until the cache shows it: earlier events
   * are all in. The sentinel is cached first, or the read would show the write at once, from the database.
   */
  async function streamCaughtUp(slug = 'posts'): Promise<void> {
    const path = `/${slug}/${sentinels[slug]}`;
    await eventually(async () => expect((await get(path)).headers['x-cache']).toBe('HIT'));
    const title = `sentinel ${++round}`;
    await t.connection.db!.collection(slug).updateOne({ _id: new Types.ObjectId(sentinels[slug]) }, { $set: { title, updatedAt: new Date() } });
    await eventually(async () => expect((await get(path)).body.title).toBe(title));
  }

  /** GETs `path` twice right away: a MISS that fills the entry, then a HIT. */
  async function fill(path: string): Promise<void> {
    expect((await get(path)).headers['x-cache']).toBe('MISS');
    expect((await get(path)).headers['x-cache']).toBe('HIT');
  }

  it('a create’s echo leaves the entries filled after the create in place', async () => {
    const paths: string[] = [];
    // Several, each read at once: an echo comes within milliseconds, so some land after their entry was filled.
    for (let i = 0; i < 10; i++) {
      const created = await request(t.app).post('/api/posts').send({ title: `new ${i}` }).expect(201);
      const path = `/posts/${created.body.id}`;
      await fill(path);
      paths.push(path);
    }
    await streamCaughtUp();
    for (const path of paths) {
      const res = await get(path);
      expect([path, res.headers['x-cache']]).toEqual([path, 'HIT']);
    }
  });

  // The router updates and deletes with findOneAndUpdate/findOneAndDelete, which some emulations leave off the stream.
  itIf(capabilities().findAndModifyEvents, 'the server does not report findOneAndUpdate on change streams')(
    'an update’s echo leaves the entries filled after the update in place',
    async () => {
      const created = await request(t.app).post('/api/posts').send({ title: 'before' }).expect(201);
      const path = `/posts/${created.body.id}`;
      await streamCaughtUp();
      await request(t.app).patch(`/api${path}`).send({ title: 'after' }).expect(200);
      await fill(path);
      await streamCaughtUp();
      const res = await get(path);
      expect(res.headers['x-cache']).toBe('HIT');
      expect(res.body.title).toBe('after');
    },
  );

  it('another writer’s change right after ours still drops the entry, even when it keeps updatedAt', async () => {
    const created = await request(t.app).post('/api/posts').send({ title: 'ours' }).expect(201);
    const path = `/posts/${created.body.id}`;
    await fill(path);
    // A script that does not maintain updatedAt: the stored version looks like the one this router wrote.
    await posts().updateOne({ _id: new Types.ObjectId(String(created.body.id)) }, { $set: { title: 'theirs' } });
    await eventually(async () => expect((await get(path)).body.title).toBe('theirs'));
    await posts().updateOne({ _id: new Types.ObjectId(String(created.body.id)) }, { $set: { title: 'theirs again', updatedAt: new Date() } });
    await eventually(async () => expect((await get(path)).body.title).toBe('theirs again'));
  });

  it('another writer’s delete after this router soft-deleted and restored the record drops the entry', async () => {
    const created = await request(t.app).post('/api/notes').send({ title: 'kept' }).expect(201);
    const id = String(created.body.id);
    await request(t.app).delete(`/api/notes/${id}`).expect(200);
    await request(t.app).post(`/api/notes/${id}/restore`).expect(200);
    await streamCaughtUp('notes');
    await fill(`/notes/${id}`);
    await t.connection.db!.collection('notes').deleteOne({ _id: new Types.ObjectId(id) });
    await eventually(async () => expect((await get(`/notes/${id}`)).status).toBe(404));
  });

  it('another writer’s soft delete after this router soft-deleted and restored the record drops the entry', async () => {
    const created = await request(t.app).post('/api/notes').send({ title: 'kept' }).expect(201);
    const id = String(created.body.id);
    await request(t.app).delete(`/api/notes/${id}`).expect(200);
    await request(t.app).post(`/api/notes/${id}/restore`).expect(200);
    await streamCaughtUp('notes');
    await fill(`/notes/${id}`);
    const now = new Date();
    await t.connection.db!.collection('notes').updateOne({ _id: new Types.ObjectId(id) }, { $set: { deletedAt: now, updatedAt: now } });
    await eventually(async () => expect((await get(`/notes/${id}`)).status).toBe(404));
  });

  it('another writer’s delete of a record it re-created after this router deleted it drops the entry', async () => {
    const created = await request(t.app).post('/api/posts').send({ title: 'first life' }).expect(201);
    const id = String(created.body.id);
    await request(t.app).delete(`/api/posts/${id}`).expect(200);
    const now = new Date();
    await posts().insertOne({ _id: new Types.ObjectId(id), title: 'second life', createdAt: now, updatedAt: now });
    await streamCaughtUp();
    expect((await get(`/posts/${id}`)).body.title).toBe('second life');
    expect((await get(`/posts/${id}`)).headers['x-cache']).toBe('HIT');
    await posts().deleteOne({ _id: new Types.ObjectId(id) });
    await eventually(async () => expect((await get(`/posts/${id}`)).status).toBe(404));
  });
});
