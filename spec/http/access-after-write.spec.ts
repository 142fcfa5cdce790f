// Access rules that answer with a where hold for the record a write leaves, not only the one it found:
// a create or update that would leave the record outside the rule is a 403 and writes nothing at all.
import type { Connection } from 'mongoose';
import request from 'supertest';
import type { AccessArgs } from '../../lib';
import { asUser, type TestApp, createTestApp } from '../helpers/create-test-app';
import { capabilities, itIf } from '../helpers/test-db';

const ANN = { id: '64b000000000000000000001', name: 'Ann' };
const BOB = { id: '64b000000000000000000002', name: 'Bob' };
const own = ({ user }: AccessArgs) => (user ? { owner: { eq: user.id } } : false);

describe('access rules hold after the write', () => {
  let t: TestApp;
  let db: Connection['db'];
  beforeAll(async () => {
    t = await createTestApp({
      collections: [
        { slug: 'authors', fields: { name: { type: 'text' } }, access: { read: () => true, create: () => true } },
        {
          slug: 'notes',
          fields: { title: { type: 'text' }, owner: { type: 'text' } },
          access: { read: own, create: own, update: own, delete: own },
        },
        {
          slug: 'essays',
          fields: { title: { type: 'text' }, author: { type: 'relationship', relationTo: 'authors' } },
          // A relation path in a create rule: only essays by an author called Ann.
          access: { read: () => true, create: () => ({ 'author.name': { eq: 'Ann' } }) },
        },
      ],
    });
    db = t.connection.db;
  });
  afterAll(() => t.close());

  const count = (name: string, filter: Record<string, unknown> = {}) => db!.collection(name).countDocuments(filter);

  it('creates a record inside the rule', async () => {
    const res = await request(t.app).post('/api/notes').set(...asUser(ANN)).send({ title: 'mine', owner: ANN.id });
    expect(res.status).toBe(201);
    expect(res.body.owner).toBe(ANN.id);
  });

  it('refuses a create outside the rule with 403 and never inserts it', async () => {
    const before = await count('notes');
    const res = await request(t.app).post('/api/notes').set(...asUser(ANN)).send({ title: 'planted', owner: BOB.id });
    expect(res.status).toBe(403);
    expect(res.headers['content-type']).toMatch(/problem\+json/);
    expect(await count('notes')).toBe(before);
    expect(await count('notes', { title: 'planted' })).toBe(0);
  });

  it('refuses a batch with one item outside the rule, writing none of it', async () => {
    const before = await count('notes');
    const res = await request(t.app)
      .post('/api/notes')
      .set(...asUser(ANN))
      .send({ data: [{ title: 'ok', owner: ANN.id }, { title: 'bad', owner: BOB.id }] });
    expect(res.status).toBe(403);
    expect(await count('notes')).toBe(before);
  });

  it('refuses an update that moves the record out of the rule, and changes nothing', async () => {
    const created = await request(t.app).post('/api/notes').set(...asUser(ANN)).send({ title: 'keep', owner: ANN.id });
    const id = created.body.id;
    const stored = await db!.collection('notes').findOne({ title: 'keep' });
    const res = await request(t.app).patch(`/api/notes/${id}`).set(...asUser(ANN)).send({ owner: BOB.id, title: 'moved' });
    expect(res.status).toBe(403);
    const after = await db!.collection('notes').findOne({ title: 'keep' });
    expect(after).toEqual(stored);
    // Bob cannot see it in his list either.
    const bobs = await request(t.app).get('/api/notes').set(...asUser(BOB));
    expect(bobs.body.data).toEqual([]);
  });

  it('still allows an update that stays inside the rule', async () => {
    const created = await request(t.app).post('/api/notes').set(...asUser(ANN)).send({ title: 'draft', owner: ANN.id });
    const res = await request(t.app).patch(`/api/notes/${created.body.id}`).set(...asUser(ANN)).send({ title: 'final' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ title: 'final', owner: ANN.id });
  });

  it('answers 404, not 403, for a record outside the rule before the change', async () => {
    const created = await request(t.app).post('/api/notes').set(...asUser(ANN)).send({ title: 'anns', owner: ANN.id });
    const res = await request(t.app).patch(`/api/notes/${created.body.id}`).set(...asUser(BOB)).send({ owner: BOB.id });
    expect(res.status).toBe(404);
  });

  it('evaluates relation paths of a create rule before inserting', async () => {
    const ann = await request(t.app).post('/api/authors').set(...asUser(ANN)).send({ name: 'Ann' });
    const bob = await request(t.app).post('/api/authors').set(...asUser(ANN)).send({ name: 'Bob' });
    const ok = await request(t.app).post('/api/essays').set(...asUser(ANN)).send({ title: 'by ann', author: ann.body.id });
    expect(ok.status).toBe(201);
    const refused = await request(t.app).post('/api/essays').set(...asUser(ANN)).send({ title: 'by bob', author: bob.body.id });
    expect(refused.status).toBe(403);
    expect(await count('essays', { title: 'by bob' })).toBe(0);
  });

  it('writes nothing for an empty PATCH: updatedAt stays', async () => {
    const created = await request(t.app).post('/api/notes').set(...asUser(ANN)).send({ title: 'still', owner: ANN.id });
    const res = await request(t.app).patch(`/api/notes/${created.body.id}`).set(...asUser(ANN)).send({});
    expect(res.status).toBe(200);
    expect(res.body.updatedAt).toBe(created.body.updatedAt);
    expect(res.body).toEqual(created.body);
  });

  itIf(capabilities().changeStreams, 'the server has no change streams')(
    'publishes no change-stream event for a refused create',
    async () => {
      const stream = db!.collection('notes').watch([], { fullDocument: 'updateLookup' });
      try {
        // The first read runs the aggregate: once it answered (nothing yet), the stream sees every later write.
        expect(await stream.tryNext()).toBeNull();
        const first = stream.next();
        await request(t.app).post('/api/notes').set(...asUser(ANN)).send({ title: 'forbidden', owner: BOB.id }).expect(403);
        await request(t.app).post('/api/notes').set(...asUser(ANN)).send({ title: 'allowed', owner: ANN.id }).expect(201);
        const event = (await first) as { operationType: string; fullDocument?: { title?: string } };
        expect(event.operationType).toBe('insert');
        expect(event.fullDocument?.title).toBe('allowed');
      } finally {
        await stream.close();
      }
    },
  );
});

describe('a refused batch names every bad item', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      collections: [
        { slug: 'notes', fields: { title: { type: 'text' }, owner: { type: 'text' }, code: { type: 'text', unique: true } }, access: { read: own, create: own } },
      ],
    });
  });
  afterAll(() => t.close());

  it('lists every item outside the create rule by index', async () => {
    const res = await request(t.app)
      .post('/api/notes')
      .set(...asUser(ANN))
      .send({ data: [{ title: 'a', owner: BOB.id }, { title: 'b', owner: ANN.id }, { title: 'c', owner: BOB.id }] });
    expect(res.status).toBe(403);
    expect(res.body.errors).toEqual([
      { index: 0, message: 'this record is outside your access rule', code: 'forbidden' },
      { index: 2, message: 'this record is outside your access rule', code: 'forbidden' },
    ]);
  });

  it('lists every unique conflict, inside the batch and against stored records', async () => {
    await request(t.app).post('/api/notes').set(...asUser(ANN)).send({ title: 'x', owner: ANN.id, code: 'taken' }).expect(201);
    const res = await request(t.app)
      .post('/api/notes')
      .set(...asUser(ANN))
      .send({ data: [{ owner: ANN.id, code: 'taken' }, { owner: ANN.id, code: 'free' }, { owner: ANN.id, code: 'free' }] });
    expect(res.status).toBe(409);
    expect(res.body.errors).toEqual([
      { field: 'code', index: 0, message: 'code must be unique', code: 'unique' },
      { field: 'code', index: 2, message: 'code must be unique', code: 'unique' },
    ]);
    expect(await t.connection.db!.collection('notes').countDocuments({ code: 'free' })).toBe(0);
  });
});
