// Writes whose rule is broader than the read rule: the update and delete rules let any user write
// any note, the read rule shows a user only its own. Searching by value through a bulk write (a dry run's
// count, an empty-body PATCH's ids) must find nothing the caller cannot read, or its counts spell out
// another user's text one guess at a time, while /count says 0. A write by id to an unreadable record is a
// 404, as a GET of it is.
import request from 'supertest';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';

const alice = asUser({ id: 'alice', role: 'user' });
const mallory = asUser({ id: 'mallory', role: 'user' });
const keyOnlyWrites = asUser({ id: 'mallory', role: 'user', scopes: ['write'] });

describe('bulk writes by where search only what the caller may read', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({
      collections: [
        {
          slug: 'notes',
          softDelete: true,
          fields: {
            text: { type: 'text' },
            owner: { type: 'text' },
            pin: { type: 'text', hidden: true },
            mood: { type: 'text', access: { read: ({ user }) => user?.id === 'alice' } },
          },
          access: {
            read: ({ user }) => (user ? { owner: { eq: String(user.id) } } : false),
            create: () => true,
            update: ({ user }) => user !== null,
            delete: ({ user }) => user !== null,
          },
        },
      ],
    });
  });
  afterAll(() => t.close());

  let secretId: string;
  let ownId: string;
  beforeEach(async () => {
    await t.connection.collection('notes').deleteMany({});
    secretId = (await request(t.app).post('/api/notes').set(...alice).send({ text: 'launch code 7731', owner: 'alice', mood: 'tense' }).expect(201)).body.id;
    // A hidden field is set by server code, never by a client's body.
    await t.connection.collection('notes').updateOne({ owner: 'alice' }, { $set: { pin: '4321' } });
    ownId = (await request(t.app).post('/api/notes').set(...mallory).send({ text: 'groceries', owner: 'mallory' }).expect(201)).body.id;
  });

  const where = (value: unknown) => `where=${encodeURIComponent(JSON.stringify(value))}`;

  /** What a dry run answers for "is there a note whose text starts with `prefix`?". */
  const dryRunMatches = async (prefix: string, method: 'delete' | 'patch' = 'delete') => {
    const res = await request(t.app)[method](`/api/notes?${where({ text: { like: `${prefix}%` } })}&dryRun=true`).set(...mallory).send({});
    expect(res.status).toBe(200);
    return res.body.meta.matched as number;
  };

  it('a dry run counts only readable records, as /count does: the guesses learn nothing', async () => {
    const count = await request(t.app).get(`/api/notes/count?${where({ text: { like: 'launch%' } })}`).set(...mallory).expect(200);
    expect(count.body.total).toBe(0);
    // The oracle: each right guess of the next character used to count 1.
    for (const guess of ['l', 'launch', 'launch code 7', 'launch code 7731']) {
      expect(await dryRunMatches(guess)).toBe(0);
      expect(await dryRunMatches(guess, 'patch')).toBe(0);
    }
    expect(await dryRunMatches('gro')).toBe(1);
  });

  it('an empty-body PATCH by where lists only readable records, and writes none of the others', async () => {
    const listed = await request(t.app).patch(`/api/notes?${where({})}`).set(...mallory).send({}).expect(200);
    expect(listed.body.meta).toEqual({ matched: 1, updated: 0, failed: 0 });
    expect(listed.body.data.map((r: { id: string }) => r.id)).toEqual([ownId]);
    const written = await request(t.app).patch(`/api/notes?${where({})}`).set(...mallory).send({ text: 'defaced' }).expect(200);
    expect(written.body.meta).toEqual({ matched: 1, updated: 1, failed: 0 });
    expect((await t.connection.collection('notes').findOne({ owner: 'alice' }))?.text).toBe('launch code 7731');
  });

  it('a bulk DELETE by where deletes only readable records', async () => {
    const res = await request(t.app).delete(`/api/notes?${where({})}`).set(...mallory).expect(200);
    expect(res.body.data).toEqual([{ id: ownId }]);
    expect((await t.connection.collection('notes').findOne({ owner: 'alice' }))?.deletedAt ?? null).toBeNull();
  });

  it('an API key without the read scope still finds only what its user may read', async () => {
    const res = await request(t.app).delete(`/api/notes?${where({ text: { like: 'launch%' } })}&dryRun=true`).set(...keyOnlyWrites).expect(200);
    expect(res.body.meta.matched).toBe(0);
  });

  it('a where on a hidden field or one the caller may not read is refused exactly as an unknown field', async () => {
    const problem = async (field: string) => {
      const res = await request(t.app).delete(`/api/notes?${where({ [field]: { eq: 'x' } })}&dryRun=true`).set(...mallory).expect(400);
      return JSON.stringify(res.body).split(field).join('FIELD');
    };
    const unknown = await problem('nosuchfield');
    expect(await problem('pin')).toBe(unknown);
    expect(await problem('mood')).toBe(unknown);
    // PATCH likewise.
    const patched = await request(t.app).patch(`/api/notes?${where({ pin: { eq: '4321' } })}&dryRun=true`).set(...mallory).send({}).expect(400);
    expect(JSON.stringify(patched.body).split('pin').join('FIELD')).toBe(unknown);
  });

  it('PATCH, DELETE and restore by id of a record the caller may write but not read are 404, as its GET, and write nothing', async () => {
    const get = await request(t.app).get(`/api/notes/${secretId}`).set(...mallory).expect(404);
    const patch = await request(t.app).patch(`/api/notes/${secretId}`).set(...mallory).send({ text: 'defaced' }).expect(404);
    expect(patch.body).toEqual(get.body);
    expect(JSON.stringify(patch.body)).not.toContain('launch');
    await request(t.app).patch(`/api/notes/${secretId}`).set(...mallory).send({}).expect(404);
    await request(t.app).delete(`/api/notes/${secretId}`).set(...mallory).expect(404);
    expect(await t.connection.collection('notes').findOne({ owner: 'alice' })).toMatchObject({ text: 'launch code 7731', deletedAt: null });
    // A deleted record likewise: its restore is a 404 to a caller who may not read it.
    await request(t.app).delete(`/api/notes/${secretId}`).set(...alice).expect(200);
    await request(t.app).post(`/api/notes/${secretId}/restore`).set(...mallory).expect(404);
    expect((await t.connection.collection('notes').findOne({ owner: 'alice' }))?.deletedAt).not.toBeNull();
    // The owner still may.
    await request(t.app).post(`/api/notes/${secretId}/restore`).set(...alice).expect(200);
    await request(t.app).patch(`/api/notes/${ownId}`).set(...mallory).send({ text: 'milk' }).expect(200);
  });
});
