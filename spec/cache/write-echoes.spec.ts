// The change stream's echo of this router's own write arrives after the write already dropped what it made
// stale: it must not drop again the entries filled since. Another writer's change still drops them, even
// right after ours. The stream delivers one collection's changes in order, so once a later driver write to a
// sentinel record has reached the cache, every earlier echo has too.
import request from 'supertest';
import { Types } from 'mongoose';
import { createTestApp, type TestApp } from '../helpers/create-test-app';
import { capabilities, describeIf, itIf } from '../helpers/test-db';
import { eventually } from './eventually';

let t: TestApp;
let sentinel: string;
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
      ],
    });
    sentinel = (await t.api.local.create('posts', { title: 'sentinel 0' })).id;
  });

  afterAll(async () => {
    await t?.close();
  });

  afterEach(() => expect(t.hostErrors).toEqual([]));

  let round = 0;
  /** Writes the sentinel through the driver and waits until the cache shows it: earlier events are all in. */
  async function streamCaughtUp(): Promise<void> {
    const title = `sentinel ${++round}`;
    await posts().updateOne({ _id: new Types.ObjectId(sentinel) }, { $set: { title, updatedAt: new Date() } });
    await eventually(async () => expect((await get(`/posts/${sentinel}`)).body.title).toBe(title));
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
});
