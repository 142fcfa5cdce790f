// Writers racing on one record each get a version number of their own: the next number is read in the
// storing session, and a writer that meets another's number on the unique index takes the next one. Bulk
// writes record one version per record they change.
import request from 'supertest';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';

const editor = asUser({ id: 'e1', role: 'editor' });

describe('versions: numbers under concurrent writers', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ collections: [{ slug: 'notes', versions: { max: 0 }, fields: { title: { type: 'text' }, tag: { type: 'text' } } }] });
  });
  afterAll(() => t.close());

  it('gives every concurrent write of a record its own number, 1 to n, none lost', async () => {
    const { body } = await request(t.app).post('/api/notes').set(...editor).send({ title: 't0' }).expect(201);
    const writers = 12;
    const answers = await Promise.all(Array.from({ length: writers }, (_, i) => request(t.app).patch(`/api/notes/${body.id}`).set(...editor).send({ title: `t${i + 1}` })));
    expect(answers.map((a) => a.status)).toEqual(Array(writers).fill(200));
    const page = await t.api.local.versions('notes', body.id, { perPage: 100 });
    expect(page.docs.map((v) => v.version)).toEqual(Array.from({ length: writers + 1 }, (_, i) => writers + 1 - i));
    expect(page.docs.filter((v) => v.op === 'update')).toHaveLength(writers);
  });

  it('records one version per record a bulk write changes', async () => {
    const a = await t.api.local.create('notes', { title: 'a', tag: 'bulk' });
    const b = await t.api.local.create('notes', { title: 'b', tag: 'bulk' });
    await request(t.app).patch('/api/notes?where=' + encodeURIComponent(JSON.stringify({ tag: { eq: 'bulk' } }))).set(...editor).send({ title: 'same' }).expect(200);
    await request(t.app).delete('/api/notes?where=' + encodeURIComponent(JSON.stringify({ tag: { eq: 'bulk' } }))).set(...editor).expect(200);
    for (const id of [a.id, b.id]) {
      const { docs } = await t.api.local.versions('notes', id);
      expect(docs.map((v) => [v.version, v.op, v.actor.origin])).toEqual([
        [3, 'delete', 'rest'],
        [2, 'update', 'rest'],
        [1, 'create', 'local'],
      ]);
      expect(docs[1].changedFields).toEqual(['title']);
    }
  });
});
