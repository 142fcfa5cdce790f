// A relationship value must name a record the caller could read: an id naming nothing (or a deleted or
// unreadable record) is a 400 naming the field, for create, batch create, update and the local API.
import request from 'supertest';
import type { AccessArgs } from '../../lib';
import { asUser, type TestApp, createTestApp } from '../helpers/create-test-app';

const USER = { id: '64b000000000000000000001' };
const ADMIN = { id: '64b000000000000000000002', role: 'admin' };
const NOBODY = '000000000000000000000000';

describe('relationship ids must name records', () => {
  let t: TestApp;
  let author: string;
  let secret: string;
  let gone: string;
  beforeAll(async () => {
    t = await createTestApp({
      collections: [
        {
          slug: 'authors',
          softDelete: true,
          fields: { name: { type: 'text' }, private: { type: 'boolean' } },
          access: { read: ({ user }: AccessArgs) => (user?.role === 'admin' ? true : { private: { neq: true } }), create: () => true, delete: () => true },
        },
        {
          slug: 'posts',
          fields: { title: { type: 'text' }, author: { type: 'relationship', relationTo: 'authors' }, editors: { type: 'relationship', relationTo: 'authors', hasMany: true } },
          access: { read: () => true, create: () => true, update: () => true },
        },
      ],
    });
    author = (await t.api.local.create('authors', { name: 'Ann' })).id;
    secret = (await t.api.local.create('authors', { name: 'Hidden', private: true })).id;
    gone = (await t.api.local.create('authors', { name: 'Gone' })).id;
    await t.api.local.delete('authors', gone);
  });
  afterAll(() => t.close());

  const post = (body: object, user: Record<string, unknown> = USER) => request(t.app).post('/api/posts').set(...asUser(user)).send(body);

  it('accepts an id of a readable record', async () => {
    const res = await post({ title: 'ok', author, editors: [author] });
    expect(res.status).toBe(201);
    expect(res.body.author).toBe(author);
  });

  it.each([
    ['an id that names nothing', () => NOBODY],
    ['a soft-deleted record', () => gone],
    ['a record the caller cannot read', () => secret],
  ])('refuses %s with a 400 naming the field', async (_name, id) => {
    const before = await t.connection.db!.collection('posts').countDocuments();
    const res = await post({ title: 'dangling', author: id() });
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/problem\+json/);
    expect(res.body.errors).toEqual([{ field: 'author', message: `no authors record with id ${id()}`, code: 'unknown_relation' }]);
    expect(await t.connection.db!.collection('posts').countDocuments()).toBe(before);
  });

  it('lets an admin who can read it link the private record', async () => {
    const res = await post({ title: 'by admin', author: secret }, ADMIN);
    expect(res.status).toBe(201);
  });

  it('names each missing id of a hasMany field', async () => {
    const res = await post({ title: 'many', editors: [author, NOBODY] });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'editors', message: `no authors record with id ${NOBODY}`, code: 'unknown_relation' }]);
  });

  it('indexes the bad items of a batch and writes none', async () => {
    const before = await t.connection.db!.collection('posts').countDocuments();
    const res = await post({ data: [{ title: 'a', author }, { title: 'b', author: NOBODY }, { title: 'c', author: gone }] });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      { field: 'author', index: 1, message: `no authors record with id ${NOBODY}`, code: 'unknown_relation' },
      { field: 'author', index: 2, message: `no authors record with id ${gone}`, code: 'unknown_relation' },
    ]);
    expect(await t.connection.db!.collection('posts').countDocuments()).toBe(before);
  });

  it('checks updates too', async () => {
    const created = await post({ title: 'to change', author });
    const res = await request(t.app).patch(`/api/posts/${created.body.id}`).set(...asUser(USER)).send({ author: NOBODY });
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ field: 'author', code: 'unknown_relation' });
    const stored = await request(t.app).get(`/api/posts/${created.body.id}`);
    expect(stored.body.author).toBe(author);
  });

  it('checks existence (not read access) for the local API without a user', async () => {
    await expect(t.api.local.create('posts', { title: 'server', author: secret })).resolves.toMatchObject({ author: secret });
    await expect(t.api.local.create('posts', { title: 'server', author: NOBODY })).rejects.toMatchObject({ status: 400 });
  });
});
