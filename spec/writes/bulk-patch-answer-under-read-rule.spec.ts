// Bulk PATCH by where: its answer must not show records the caller's read rule hides. The update
// rule may allow writing records the caller may not read; the selection is held to the read rule too (an
// empty body writes nothing, so otherwise a bulk PATCH would be a list that ignores the read rule), and a
// record the write itself takes out of the caller's view is answered by its id alone.
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

  it('selects only records the caller may read: an empty body lists nothing the read rule hides', async () => {
    const [mine, theirs] = await seed();
    const res = await request(t.app).patch('/api/notes?where={}').set(...editor).send({}).expect(200);
    expect(res.body.meta).toEqual({ matched: 1, updated: 0, failed: 0 });
    expect(res.body.data).toEqual([expect.objectContaining({ id: mine.id, title: 'mine', body: 'm' })]);
    expect(JSON.stringify(res.body)).not.toContain(theirs.id);
    expect(JSON.stringify(res.body)).not.toContain('private');
  });

  it('writes no record the read rule hides, though the update rule allows it', async () => {
    const [mine] = await seed();
    const res = await request(t.app).patch('/api/notes?where={}').set(...editor).send({ title: 'renamed' }).expect(200);
    expect(res.body.meta).toEqual({ matched: 1, updated: 1, failed: 0 });
    expect(res.body.data).toEqual([expect.objectContaining({ id: mine.id, title: 'renamed' })]);
    expect((await t.connection.collection('notes').findOne({ owner: 'zz' }))?.title).toBe('theirs');
  });

  it('answers only the id of a record the write took out of the caller\'s view', async () => {
    const [mine] = await seed();
    const res = await request(t.app).patch('/api/notes?where={}').set(...editor).send({ owner: 'zz', body: 'given away' }).expect(200);
    expect(res.body.meta).toEqual({ matched: 1, updated: 1, failed: 0 });
    expect(res.body.data).toEqual([{ id: mine.id }]);
    expect(JSON.stringify(res.body)).not.toContain('given away');
    expect(await t.connection.collection('notes').countDocuments({ owner: 'zz' })).toBe(2);
  });

  it('answers every record in full to a caller who may read them all', async () => {
    await seed();
    const res = await request(t.app).patch('/api/notes?where={}').set(...admin).send({}).expect(200);
    expect(res.body.data.map((r: { body: string }) => r.body).sort()).toEqual(['m', 'private']);
  });
});
