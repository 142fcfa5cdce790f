// Attack on bulk PATCH by where: its answer must not show records the caller's read rule hides. The update
// rule may allow writing records the caller may not read; an empty body then writes nothing, so without
// this a bulk PATCH would be a list that ignores the read rule.
import request from 'supertest';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';

const admin = asUser({ id: 'a1', role: 'admin' });
const editor = asUser({ id: 'e1', role: 'editor' });

describe('bulk PATCH and the read rule', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({
      collections: [
        {
          slug: 'notes',
          fields: { title: { type: 'text' }, owner: { type: 'text' }, body: { type: 'text' } },
          access: {
            read: ({ user }) => (user?.role === 'admin' ? true : user ? { owner: { eq: String(user.id) } } : false),
            create: () => true,
            update: () => true,
            delete: () => true,
          },
        },
      ],
    });
  });
  afterAll(() => t.close());
  beforeEach(() => t.connection.collection('notes').deleteMany({}));

  const seed = async () => {
    const res = await request(t.app)
      .post('/api/notes')
      .set(...admin)
      .send({ data: [{ title: 'mine', owner: 'e1', body: 'm' }, { title: 'theirs', owner: 'zz', body: 'private' }] })
      .expect(201);
    return res.body.data as Array<{ id: string }>;
  };

  it('answers only the ids of records the read rule hides when the body changes nothing', async () => {
    const [mine, theirs] = await seed();
    const res = await request(t.app).patch('/api/notes?where={}').set(...editor).send({}).expect(200);
    expect(res.body.meta).toEqual({ matched: 2, updated: 0, failed: 0 });
    const byId = new Map(res.body.data.map((r: { id: string }) => [r.id, r]));
    expect(byId.get(mine.id)).toMatchObject({ title: 'mine', body: 'm' });
    expect(byId.get(theirs.id)).toEqual({ id: theirs.id });
    expect(JSON.stringify(res.body)).not.toContain('private');
  });

  it('answers only the ids of written records the read rule hides', async () => {
    const [mine, theirs] = await seed();
    const res = await request(t.app).patch('/api/notes?where={}').set(...editor).send({ title: 'renamed' }).expect(200);
    expect(res.body.meta).toEqual({ matched: 2, updated: 2, failed: 0 });
    const byId = new Map(res.body.data.map((r: { id: string }) => [r.id, r]));
    expect(byId.get(mine.id)).toMatchObject({ title: 'renamed', body: 'm' });
    expect(byId.get(theirs.id)).toEqual({ id: theirs.id });
    expect(JSON.stringify(res.body)).not.toContain('private');
    // Written all the same: the update rule allowed it.
    expect((await t.connection.collection('notes').findOne({ owner: 'zz' }))?.title).toBe('renamed');
  });

  it('answers every record in full to a caller who may read them all', async () => {
    await seed();
    const res = await request(t.app).patch('/api/notes?where={}').set(...admin).send({}).expect(200);
    expect(res.body.data.map((r: { body: string }) => r.body).sort()).toEqual(['m', 'private']);
  });
});
