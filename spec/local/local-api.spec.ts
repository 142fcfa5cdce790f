// The local API: the same operations as REST; access overridden unless a user is passed.
import { NotFoundError, QueryError, UnauthorizedError, ValidationError } from '../../lib';
import { type TestApp, createTestApp } from '../helpers/create-test-app';

let t: TestApp;
const ann = { id: '0000000000000000000000a1' };

beforeAll(async () => {
  t = await createTestApp({
    collections: [
      { slug: 'authors', fields: { name: { type: 'text' } } },
      {
        slug: 'posts',
        softDelete: true,
        fields: {
          title: { type: 'text', required: true },
          views: { type: 'number' },
          owner: { type: 'text' },
          author: { type: 'relationship', relationTo: 'authors' },
          internal: { type: 'text', hidden: true },
        },
        access: { read: ({ user }) => (user ? { owner: { eq: user.id } } : false) },
      },
    ],
    globals: [{ slug: 'settings', fields: { theme: { type: 'select', options: ['light', 'dark'], default: 'light' } } }],
  });
});
afterAll(() => t.close());

describe('local API', () => {
  it('creates, finds, updates, deletes and restores with access overridden by default', async () => {
    const author = await t.api.local.create('authors', { name: 'Ann' });
    const post = await t.api.local.create('posts', { title: 'Local', views: 5, owner: 'someone', author: author.id, internal: 'x' });
    expect(post).not.toHaveProperty('internal');
    const found = await t.api.local.find('posts', { where: { views: { gte: 5 } }, sort: '-views', depth: 1 });
    expect(found.total).toBe(1);
    expect(found.docs[0]).toMatchObject({ id: post.id, author: { id: author.id, name: 'Ann' } });
    const byId = await t.api.local.findById('posts', post.id, { include: 'author' });
    expect(byId.author).toMatchObject({ name: 'Ann' });
    expect(await t.api.local.update('posts', post.id, { views: 6 })).toMatchObject({ views: 6 });
    expect(await t.api.local.delete('posts', post.id)).toEqual({ deleted: true });
    await expect(t.api.local.findById('posts', post.id)).rejects.toBeInstanceOf(NotFoundError);
    expect(await t.api.local.restore('posts', post.id)).toMatchObject({ id: post.id, deletedAt: null });
    const many = await t.api.local.createMany('posts', [{ title: 'm1' }, { title: 'm2' }]);
    expect(many.map((p) => p.title)).toEqual(['m1', 'm2']);
  });

  it('applies the access rules of a user when one is passed', async () => {
    await t.api.local.create('posts', { title: 'Ann’s', owner: ann.id });
    const mine = await t.api.local.find('posts', { user: ann });
    expect(mine.docs.map((p) => p.owner)).toEqual([ann.id]);
    await expect(t.api.local.create('posts', { title: 'as ann', internal: 'x' }, { user: ann })).rejects.toBeInstanceOf(ValidationError);
  });

  it('validates like REST does', async () => {
    await expect(t.api.local.create('posts', { views: 'x' })).rejects.toBeInstanceOf(ValidationError);
    await expect(t.api.local.find('posts', { where: { $where: '1' } })).rejects.toBeInstanceOf(QueryError);
    await expect(t.api.local.find('posts', { where: { nope: { eq: 1 } } })).rejects.toBeInstanceOf(QueryError);
  });

  it('reads and updates globals', async () => {
    expect(await t.api.local.findGlobal('settings')).toEqual({ theme: 'light', createdAt: null, updatedAt: null });
    expect(await t.api.local.updateGlobal('settings', { theme: 'dark' })).toMatchObject({ theme: 'dark' });
    await expect(t.api.local.findGlobal('nope')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('treats user: null as an anonymous caller (access applies), omitted user as override', async () => {
    await expect(t.api.local.find('posts', { user: null })).rejects.toBeInstanceOf(UnauthorizedError);
    const all = await t.api.local.find('posts', { perPage: 100 });
    expect(all.total).toBeGreaterThanOrEqual(2);
  });
});
