// The local API: the same operations as REST. Access is overridden when no user is given, applied when one
// is (or when overrideAccess: false says so), and `{ user, overrideAccess: true }` acts as that user with
// access skipped. A `user` key set to undefined without overrideAccess, or a non-boolean overrideAccess, is refused.
import { ForbiddenError, NotFoundError, QueryError, UnauthorizedError, ValidationError } from '../../lib';
import { type TestApp, createTestApp } from '../helpers/create-test-app';
import { pngBytes } from '../uploads/upload-helpers';

let t: TestApp;
const ann = { id: '0000000000000000000000a1' };
const editor = { id: '0000000000000000000000e1', role: 'editor' };
const editorsOnly = ({ user }: { user: { role?: unknown } | null }) => user?.role === 'editor';

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
      {
        // Signed-in users read their own notes; only editors write.
        slug: 'notes',
        fields: { text: { type: 'text' }, owner: { type: 'text' }, secret: { type: 'text', hidden: true } },
        access: {
          read: ({ user }) => (user ? { owner: { eq: user.id } } : false),
          create: editorsOnly,
          update: editorsOnly,
          delete: editorsOnly,
        },
      },
    ],
    globals: [
      { slug: 'settings', fields: { theme: { type: 'select', options: ['light', 'dark'], default: 'light' } } },
      { slug: 'banner', fields: { text: { type: 'text' } }, access: { read: editorsOnly, update: editorsOnly } },
    ],
    // Only editors upload: an override is the only way anyone else's file gets stored.
    uploads: { access: { create: editorsOnly } },
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

describe('local API: overrideAccess', () => {
  const notes = () => t.connection.collection('notes');
  const storedNote = (text: string) => notes().findOne({ text });
  const files = () => t.connection.collection('uploads.files');

  beforeAll(async () => {
    await t.api.local.createMany('notes', [
      { text: 'ann-1', owner: ann.id },
      { text: 'bob-1', owner: 'bob' },
    ]);
  });

  it('defaults to true without a user: every record, any write, hidden fields included', async () => {
    const all = await t.api.local.find('notes', { sort: 'text' });
    expect(all.docs.map((n) => n.text)).toEqual(['ann-1', 'bob-1']);
    const created = await t.api.local.create('notes', { text: 'server', owner: 'x', secret: 's' });
    expect(created).not.toHaveProperty('secret');
    expect(await storedNote('server')).toMatchObject({ owner: 'x', secret: 's' });
    // An own overrideAccess: undefined is the default too.
    expect((await t.api.local.find('notes', { overrideAccess: undefined })).total).toBe(3);
    await t.api.local.delete('notes', created.id);
    expect(await storedNote('server')).toBeNull();
  });

  it('overrideAccess: false without a user runs as an anonymous caller under the rules, and writes nothing', async () => {
    await expect(t.api.local.find('notes', { overrideAccess: false })).rejects.toBeInstanceOf(UnauthorizedError);
    await expect(t.api.local.create('notes', { text: 'anon' }, { overrideAccess: false })).rejects.toBeInstanceOf(UnauthorizedError);
    await expect(t.api.local.findGlobal('banner', { overrideAccess: false })).rejects.toBeInstanceOf(UnauthorizedError);
    await expect(t.api.local.upload(pngBytes(), { filename: 'anon.png', overrideAccess: false })).rejects.toBeInstanceOf(UnauthorizedError);
    expect(await storedNote('anon')).toBeNull();
    expect(await files().countDocuments({ 'metadata.originalName': 'anon.png' })).toBe(0);
  });

  it("a user alone applies that user's rules, as overrideAccess: false with the user does", async () => {
    for (const options of [{ user: ann }, { user: ann, overrideAccess: false }]) {
      const mine = await t.api.local.find('notes', options);
      expect(mine.docs.map((n) => n.text)).toEqual(['ann-1']);
      await expect(t.api.local.create('notes', { text: 'by ann' }, options)).rejects.toBeInstanceOf(ForbiddenError);
      const bob = (await notes().findOne({ text: 'bob-1' }))!;
      await expect(t.api.local.delete('notes', String(bob._id), options)).rejects.toBeInstanceOf(ForbiddenError);
      await expect(t.api.local.updateGlobal('banner', { text: 'ann' }, options)).rejects.toBeInstanceOf(ForbiddenError);
      await expect(t.api.local.upload(pngBytes(), { filename: 'ann.png', ...options })).rejects.toBeInstanceOf(ForbiddenError);
    }
    expect(await storedNote('by ann')).toBeNull();
    expect(await storedNote('bob-1')).not.toBeNull();
    expect(await files().countDocuments({ 'metadata.originalName': 'ann.png' })).toBe(0);
    const editorView = await t.api.local.create('notes', { text: 'by editor', owner: editor.id }, { user: editor });
    expect(await storedNote('by editor')).toMatchObject({ owner: editor.id });
    await t.api.local.delete('notes', editorView.id);
  });

  it('{ user, overrideAccess: true } acts as that user with access skipped: reads all, writes anything, the user recorded', async () => {
    const options = { user: ann, overrideAccess: true };
    const all = await t.api.local.find('notes', { ...options, sort: 'text' });
    expect(all.docs.map((n) => n.text)).toEqual(['ann-1', 'bob-1']);
    const created = await t.api.local.create('notes', { text: 'ann override', owner: 'bob', secret: 'kept' }, options);
    expect(await storedNote('ann override')).toMatchObject({ owner: 'bob', secret: 'kept' });
    expect(await t.api.local.update('notes', created.id, { text: 'ann override 2' }, options)).toMatchObject({ text: 'ann override 2' });
    expect(await t.api.local.findById('notes', created.id, options)).toMatchObject({ owner: 'bob' });
    expect(await t.api.local.delete('notes', created.id, options)).toEqual({ deleted: true });
    expect(await storedNote('ann override 2')).toBeNull();
    expect(await t.api.local.updateGlobal('banner', { text: 'by ann' }, options)).toMatchObject({ text: 'by ann' });
    expect(await t.api.local.findGlobal('banner', options)).toMatchObject({ text: 'by ann' });
    // The upload rule would refuse ann; the file is stored all the same, and recorded as hers.
    const file = await t.api.local.upload(pngBytes(), { filename: 'ann-override.png', mimeType: 'image/png', ...options });
    expect(file).toMatchObject({ originalName: 'ann-override.png', mimeType: 'image/png' });
    expect(await files().findOne({ 'metadata.originalName': 'ann-override.png' })).toMatchObject({ metadata: { uploadedBy: ann.id } });
  });

  it('user: null is an anonymous caller: the rules apply unless overrideAccess: true', async () => {
    await expect(t.api.local.find('notes', { user: null })).rejects.toBeInstanceOf(UnauthorizedError);
    await expect(t.api.local.create('notes', { text: 'null user' }, { user: null })).rejects.toBeInstanceOf(UnauthorizedError);
    expect(await storedNote('null user')).toBeNull();
    expect((await t.api.local.find('notes', { user: null, overrideAccess: true })).total).toBe(2);
    const file = await t.api.local.upload(pngBytes(), { filename: 'nobody.png', mimeType: 'image/png', user: null, overrideAccess: true });
    expect(file.originalName).toBe('nobody.png');
    const stored = await files().findOne({ 'metadata.originalName': 'nobody.png' });
    expect(stored?.metadata).not.toHaveProperty('uploadedBy');
  });

  it('refuses user: undefined without overrideAccess (req.user of an anonymous request), in every method, writing nothing', async () => {
    const options = { user: undefined };
    const id = String((await notes().findOne({ text: 'ann-1' }))!._id);
    const calls: [string, () => Promise<unknown>][] = [
      ['find', () => t.api.local.find('notes', options)],
      ['findById', () => t.api.local.findById('notes', id, options)],
      ['create', () => t.api.local.create('notes', { text: 'undefined user' }, options)],
      ['createMany', () => t.api.local.createMany('notes', [{ text: 'undefined user' }], options)],
      ['update', () => t.api.local.update('notes', id, { text: 'changed' }, options)],
      ['delete', () => t.api.local.delete('notes', id, options)],
      ['restore', () => t.api.local.restore('posts', id, options)],
      ['findGlobal', () => t.api.local.findGlobal('banner', options)],
      ['updateGlobal', () => t.api.local.updateGlobal('banner', { text: 'undefined user' }, options)],
      ['upload', () => t.api.local.upload(pngBytes(), { filename: 'undefined-user.png', ...options })],
    ];
    for (const [name, call] of calls) {
      const error = await call().then(() => undefined, (e: unknown) => e);
      expect([name, error]).toEqual([name, expect.any(TypeError)]);
      expect((error as Error).message).toMatch(/user.*undefined.*overrideAccess/);
    }
    expect(await storedNote('undefined user')).toBeNull();
    expect(await storedNote('ann-1')).not.toBeNull();
    expect(await storedNote('changed')).toBeNull();
    expect(await t.connection.collection('globals').findOne({ text: 'undefined user' })).toBeNull();
    expect(await files().countDocuments({ 'metadata.originalName': 'undefined-user.png' })).toBe(0);
  });

  it('user: undefined with an explicit overrideAccess means "no user"', async () => {
    await expect(t.api.local.find('notes', { user: undefined, overrideAccess: false })).rejects.toBeInstanceOf(UnauthorizedError);
    await expect(t.api.local.create('notes', { text: 'u-f' }, { user: undefined, overrideAccess: false })).rejects.toBeInstanceOf(UnauthorizedError);
    expect(await storedNote('u-f')).toBeNull();
    expect((await t.api.local.find('notes', { user: undefined, overrideAccess: true })).total).toBe(2);
    await t.api.local.create('notes', { text: 'u-t', secret: 's' }, { user: undefined, overrideAccess: true });
    expect(await storedNote('u-t')).toMatchObject({ secret: 's' });
    await notes().deleteOne({ text: 'u-t' });
  });

  it('refuses an overrideAccess that is not a boolean, writing nothing', async () => {
    for (const overrideAccess of ['yes', 1, 0, null, 'false']) {
      const options = { overrideAccess } as unknown as { overrideAccess: boolean };
      await expect(t.api.local.find('notes', options)).rejects.toThrow(/overrideAccess must be true or false/);
      await expect(t.api.local.create('notes', { text: 'bad flag' }, options)).rejects.toBeInstanceOf(TypeError);
      await expect(t.api.local.create('notes', { text: 'bad flag' }, { user: ann, ...options })).rejects.toBeInstanceOf(TypeError);
    }
    expect(await storedNote('bad flag')).toBeNull();
  });
});
