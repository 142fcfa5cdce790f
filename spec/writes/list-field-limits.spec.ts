// The most items a list field holds (`maxItems`, default 1000): arrays and hasMany fields alike. A body over
// it is a 400 naming the field with code `too_many_items`, and nothing is written; the OpenAPI document
// tells clients the limit.
import request from 'supertest';
import { asUser, createTestApp, type TestApp } from '../helpers/create-test-app';

const admin = asUser({ id: '000000000000000000000001', role: 'admin' });
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({
    collections: [
      { slug: 'people', fields: { name: { type: 'text' } } },
      {
        slug: 'posts',
        fields: {
          title: { type: 'text' },
          tags: { type: 'array', of: 'text' },
          labels: { type: 'select', options: ['a', 'b'], hasMany: true, maxItems: 3 },
          readers: { type: 'relationship', relationTo: 'people', hasMany: true, maxItems: 2 },
        },
      },
    ],
  });
});

afterAll(() => t.close());

it('refuses an array over the default of 1000 items with a 400 naming the field, and writes nothing', async () => {
  const tags = Array.from({ length: 1001 }, (_, i) => `t${i}`);
  const res = await request(t.app).post('/api/posts').set(...admin).send({ title: 'many', tags });
  expect(res.status).toBe(400);
  expect(res.body.errors).toEqual([{ field: 'tags', code: 'too_many_items', message: 'tags must have at most 1000 items' }]);
  expect(await t.connection.collection('posts').countDocuments()).toBe(0);

  const ok = await request(t.app).post('/api/posts').set(...admin).send({ title: 'enough', tags: tags.slice(0, 1000) });
  expect(ok.status).toBe(201);
  expect(ok.body.tags).toHaveLength(1000);
});

it("holds a hasMany field to its own maxItems, on create, update and in a batch", async () => {
  const created = await request(t.app).post('/api/posts').set(...admin).send({ title: 'x', labels: ['a', 'b', 'a'] });
  expect(created.status).toBe(201);

  const patched = await request(t.app).patch(`/api/posts/${created.body.id}`).set(...admin).send({ labels: ['a', 'b', 'a', 'b'] });
  expect(patched.status).toBe(400);
  expect(patched.body.errors).toEqual([{ field: 'labels', code: 'too_many_items', message: 'labels must have at most 3 items' }]);

  const ids = ['000000000000000000000011', '000000000000000000000012', '000000000000000000000013'];
  const batch = await request(t.app).post('/api/posts').set(...admin).send({ data: [{ title: 'ok' }, { title: 'bad', readers: ids }] });
  expect(batch.status).toBe(400);
  expect(batch.body.errors).toEqual([expect.objectContaining({ index: 1, field: 'readers', code: 'too_many_items' })]);
  expect(await t.connection.collection('posts').countDocuments({ title: { $in: ['ok', 'bad'] } })).toBe(0);
});

it('tells clients the limit in the OpenAPI write bodies', async () => {
  const doc = (await request(t.app).get('/api/docs/openapi.json')).body;
  const create = doc.components.schemas.PostsCreate ?? doc.components.schemas.PostCreate;
  const schemaOf = (name: string) => {
    const property = create.properties[name];
    return property.anyOf ? property.anyOf[0] : property;
  };
  expect(schemaOf('tags')).toMatchObject({ type: expect.arrayContaining(['array']), maxItems: 1000 });
  expect(schemaOf('labels')).toMatchObject({ maxItems: 3 });
  expect(schemaOf('readers')).toMatchObject({ maxItems: 2 });
});
