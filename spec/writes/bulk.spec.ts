// Bulk update and delete by where over HTTP and the local API: where required, the body checked once
// before anything is written, the caller's rules and field access per record, maxBulk, dryRun, hooks and
// change events per record, soft and permanent deletes, If-Match on bulk writes, and the answer's shape.
import request from 'supertest';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';

const admin = asUser({ id: 'a1', role: 'admin' });
const owner = asUser({ id: 'o1', role: 'editor' });

describe('bulk writes by where', () => {
  let t: TestApp;
  const hookCalls: string[] = [];

  beforeAll(async () => {
    t = await createTestApp({
      core: { api: { maxBulk: 5 } },
      collections: [
        {
          slug: 'tasks',
          softDelete: true,
          fields: {
            title: { type: 'text', required: true },
            status: { type: 'select', options: ['open', 'done'] },
            owner: { type: 'text' },
            score: { type: 'number', min: 0 },
            secret: { type: 'text', hidden: true },
            note: { type: 'text', access: { read: ({ user }) => user?.role === 'admin', update: ({ user }) => user?.role === 'admin' } },
          },
          access: {
            read: () => true,
            update: ({ user }) => (user?.role === 'admin' ? true : user ? { owner: { eq: String(user.id) } } : false),
            delete: ({ user }) => (user?.role === 'admin' ? true : user ? { owner: { eq: String(user.id) } } : false),
          },
          hooks: {
            beforeChange: [
              ({ data, originalDoc }) => {
                hookCalls.push(`beforeChange:${String(originalDoc?.title)}`);
                if (originalDoc?.title === 'veto') throw new Error('vetoed by hook');
                return data;
              },
            ],
            afterChange: [({ doc }) => void hookCalls.push(`afterChange:${String(doc.title)}`)],
            beforeDelete: [({ doc }) => void hookCalls.push(`beforeDelete:${String(doc.title)}`)],
          },
        },
      ],
    });
  });
  afterAll(() => t.close());
  beforeEach(async () => {
    await t.connection.collection('tasks').deleteMany({});
    hookCalls.length = 0;
  });

  const seed = async (docs: Array<Record<string, unknown>>) => {
    const res = await request(t.app).post('/api/tasks').set(...admin).send({ data: docs }).expect(201);
    return res.body.data as Array<{ id: string }>;
  };
  const stored = () => t.connection.collection('tasks').find({}, { sort: { title: 1 } }).toArray();

  it('needs an explicit where: without one it is a 400 and nothing is written', async () => {
    await seed([{ title: 'a', status: 'open' }]);
    const res = await request(t.app).patch('/api/tasks').set(...admin).send({ status: 'done' }).expect(400);
    expect(res.body.detail).toMatch(/where/);
    expect((await stored())[0].status).toBe('open');
    await request(t.app).delete('/api/tasks').set(...admin).expect(400);
    expect(await t.connection.collection('tasks').countDocuments({ deletedAt: null })).toBe(1);
  });

  it('updates every match (where={} is all), running each record\'s hooks, and answers the records, counts and errors', async () => {
    await seed([
      { title: 'a', status: 'open' },
      { title: 'b', status: 'open' },
      { title: 'c', status: 'done' },
    ]);
    hookCalls.length = 0;
    const res = await request(t.app).patch('/api/tasks?where=' + encodeURIComponent(JSON.stringify({ status: { eq: 'open' } }))).set(...admin).send({ score: 3 }).expect(200);
    expect(res.body.meta).toEqual({ matched: 2, updated: 2, failed: 0 });
    expect(res.body.errors).toEqual([]);
    expect(res.body.data.map((r: { title: string }) => r.title).sort()).toEqual(['a', 'b']);
    expect(res.body.data[0].secret).toBeUndefined();
    expect((await stored()).map((d) => d.score)).toEqual([3, 3, undefined]);
    expect(hookCalls.filter((c) => c.startsWith('beforeChange')).sort()).toEqual(['beforeChange:a', 'beforeChange:b']);
    expect(hookCalls.filter((c) => c.startsWith('afterChange')).sort()).toEqual(['afterChange:a', 'afterChange:b']);
    const all = await request(t.app).patch('/api/tasks?where={}').set(...admin).send({ score: 1 }).expect(200);
    expect(all.body.meta).toMatchObject({ matched: 3, updated: 3 });
  });

  it('validates the body once before anything is written: an unknown field or a bad value writes nothing', async () => {
    await seed([{ title: 'a' }, { title: 'b' }]);
    hookCalls.length = 0;
    const unknown = await request(t.app).patch('/api/tasks?where={}').set(...admin).send({ nope: 1 }).expect(400);
    expect(unknown.body.code).toBe('validation_error');
    await request(t.app).patch('/api/tasks?where={}').set(...admin).send({ score: -1 }).expect(400);
    expect(hookCalls).toEqual([]);
    expect((await stored()).every((d) => d.score === undefined)).toBe(true);
  });

  it('a record a hook fails on fails the whole request (its 500), and nothing is written', async () => {
    await seed([{ title: 'veto' }, { title: 'fine' }]);
    const res = await request(t.app).patch('/api/tasks?where={}').set(...admin).send({ score: 7 }).expect(500);
    expect(res.body.code).toBe('internal_error');
    expect((await stored()).every((d) => d.score === undefined)).toBe(true);
  });

  it("writes only the records the caller's rule allows, and refuses a field it may not write (403, nothing written)", async () => {
    await seed([
      { title: 'mine', owner: 'o1' },
      { title: 'theirs', owner: 'x' },
    ]);
    const res = await request(t.app).patch('/api/tasks?where={}').set(...owner).send({ score: 2 }).expect(200);
    expect(res.body.meta).toMatchObject({ matched: 1, updated: 1 });
    expect((await stored()).find((d) => d.title === 'theirs')?.score).toBeUndefined();
    const forbidden = await request(t.app).patch('/api/tasks?where={}').set(...owner).send({ note: 'x' }).expect(403);
    expect(forbidden.body.code).toBe('forbidden_field');
    // The constraint holds after the change too: the owner cannot give its record away.
    // A client's mistake on one record is refused whole, naming the record: nothing written.
    const away = await request(t.app).patch('/api/tasks?where={}').set(...owner).send({ owner: 'x' }).expect(403);
    expect(away.body.errors).toEqual([expect.objectContaining({ id: expect.any(String), code: 'forbidden' })]);
    expect((await stored()).find((d) => d.title === 'mine')?.owner).toBe('o1');
  });

  it('refuses a where on an unreadable or hidden field as a list does (400)', async () => {
    await seed([{ title: 'a', note: 'n' }]);
    await t.connection.collection('tasks').updateOne({ title: 'a' }, { $set: { secret: 's' } });
    const hidden = await request(t.app).patch('/api/tasks?where=' + encodeURIComponent(JSON.stringify({ secret: { eq: 's' } }))).set(...admin).send({ score: 1 });
    const listed = await request(t.app).get('/api/tasks?where=' + encodeURIComponent(JSON.stringify({ secret: { eq: 's' } }))).set(...admin);
    expect(hidden.status).toBe(400);
    expect(hidden.body.detail).toBe(listed.body.detail);
    const unreadable = await request(t.app).delete('/api/tasks?where=' + encodeURIComponent(JSON.stringify({ note: { eq: 'n' } }))).set(...owner);
    expect(unreadable.status).toBe(400);
    expect(await t.connection.collection('tasks').countDocuments({ deletedAt: null })).toBe(1);
  });

  it('refuses more matches than maxBulk with 400 too_many_matches, writing nothing; dryRun answers the count', async () => {
    await seed(Array.from({ length: 6 }, (_, i) => ({ title: `t${i}` })));
    const res = await request(t.app).patch('/api/tasks?where={}').set(...admin).send({ score: 1 }).expect(400);
    expect(res.body.code).toBe('too_many_matches');
    expect(await t.connection.collection('tasks').countDocuments({ score: 1 })).toBe(0);
    const dry = await request(t.app).delete('/api/tasks?where=' + encodeURIComponent(JSON.stringify({ title: { in: ['t1', 't2'] } })) + '&dryRun=true').set(...admin).expect(200);
    expect(dry.body).toEqual({ data: [], meta: { matched: 2 } });
    expect(await t.connection.collection('tasks').countDocuments({ deletedAt: null })).toBe(6);
  });

  it('soft-deletes on a soft-delete collection, removes with permanent=true, and runs beforeDelete per record', async () => {
    const [a, b] = await seed([{ title: 'a' }, { title: 'b' }, { title: 'c' }]);
    hookCalls.length = 0;
    const where = encodeURIComponent(JSON.stringify({ title: { in: ['a', 'b'] } }));
    const soft = await request(t.app).delete(`/api/tasks?where=${where}`).set(...admin).expect(200);
    expect(soft.body.meta).toEqual({ matched: 2, deleted: 2, failed: 0 });
    expect(soft.body.data.map((r: { id: string }) => r.id).sort()).toEqual([a.id, b.id].sort());
    expect(hookCalls.sort()).toEqual(['beforeDelete:a', 'beforeDelete:b']);
    expect(await t.connection.collection('tasks').countDocuments({ deletedAt: { $ne: null } })).toBe(2);
    const hard = await request(t.app).delete(`/api/tasks?where=${where}&permanent=true`).set(...admin).expect(200);
    expect(hard.body.meta).toMatchObject({ matched: 2, deleted: 2 });
    expect(await t.connection.collection('tasks').countDocuments({})).toBe(1);
  });

  it('takes only If-Match: * on a bulk write', async () => {
    await seed([{ title: 'a' }]);
    const res = await request(t.app).patch('/api/tasks?where={}').set(...admin).set('If-Match', '"abc"').send({ score: 1 }).expect(400);
    expect(res.body.code).toBe('invalid_header');
    await request(t.app).patch('/api/tasks?where={}').set(...admin).set('If-Match', '*').send({ score: 1 }).expect(200);
  });

  it('is in the local API as updateMany and deleteMany', async () => {
    await seed([{ title: 'a', status: 'open' }, { title: 'b', status: 'done' }]);
    const updated = await t.api.local.updateMany('tasks', { status: { eq: 'open' } }, { score: 9 });
    expect(updated.meta).toMatchObject({ matched: 1, updated: 1 });
    const deleted = await t.api.local.deleteMany('tasks', {}, { permanent: true });
    expect(deleted.meta).toMatchObject({ matched: 2, deleted: 2 });
    expect(await t.connection.collection('tasks').countDocuments({})).toBe(0);
  });

  describe('on an auth collection', () => {
    let a: TestApp;
    beforeAll(async () => {
      a = await createTestApp({
        auth: { jwtSecret: 'x'.repeat(40), passwordHash: { cost: 1024, blockSize: 8, parallelization: 1 } },
        collections: [{ slug: 'members', auth: true, fields: { bio: { type: 'text' } } }],
      });
      await a.api.local.createMany('members', [
        { email: 'm1@example.com', password: 'correct horse battery 1' },
        { email: 'm2@example.com', password: 'correct horse battery 2' },
      ]);
    });
    afterAll(() => a.close());

    it('refuses to set a password by filter (400), writing nothing', async () => {
      const before = await a.connection.collection('members').find({}).toArray();
      const res = await request(a.app).patch('/api/members?where={}').set(...admin).send({ password: 'one for all 12345' }).expect(400);
      expect(res.body.errors).toEqual([expect.objectContaining({ field: 'password', code: 'not_bulk' })]);
      const after = await a.connection.collection('members').find({}).toArray();
      expect(after.map((d) => d.password)).toEqual(before.map((d) => d.password));
    });
  });
});
