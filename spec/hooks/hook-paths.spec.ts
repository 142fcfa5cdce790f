// Hooks run the same way on every path into the operations: REST and the local API, soft and permanent
// delete, restore, batch create (every item's before-hooks and validation before any write), custom
// endpoints' req.context, populated records at every depth, write answers, and globals.
import { Types } from 'mongoose';
import request from 'supertest';
import { ContentError } from '../../lib';
import type { HookContext } from '../../lib/config/hooks';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';

const editor = { id: '0000000000000000000000e1', role: 'editor' };
const everyone = { read: () => true, create: () => true, update: () => true, delete: () => true };

/** One hook call: which hook of which collection, for which operation, and what it was given. */
interface Call {
  hook: string;
  operation?: string;
  id?: string;
  doc?: Record<string, unknown>;
  data?: Record<string, unknown>;
  originalDoc?: Record<string, unknown>;
  previousDoc?: Record<string, unknown>;
  permanent?: boolean;
  value?: unknown;
  context?: HookContext;
  /** Posts stored when the hook ran. */
  stored?: number;
}

let t: TestApp;
const calls: Call[] = [];
const copy = <T>(value: T): T => (value === undefined ? value : structuredClone(value));
const storedPosts = () => t.connection.db!.collection('posts').countDocuments();
const postRow = (id: string) => t.connection.db!.collection('posts').findOne({ _id: new Types.ObjectId(id) });
const hooks = (prefix = '') => calls.map((c) => c.hook).filter((hook) => hook.startsWith(prefix));

type Given = Omit<Call, 'hook' | 'stored' | 'operation'> & { operation?: string };
function note(hook: string, args: Given, stored?: number): void {
  const { operation, id, doc, data, originalDoc, previousDoc, permanent, value, context } = args;
  calls.push({ hook, operation, id, doc: copy(doc), data: copy(data), originalDoc: copy(originalDoc), previousDoc: copy(previousDoc), permanent, value: copy(value), context, stored });
}

beforeAll(async () => {
  t = await createTestApp({
    collections: [
      {
        slug: 'orgs',
        access: everyone,
        fields: { name: { type: 'text' }, taxId: { type: 'text', hidden: true } },
        hooks: {
          beforeRead: [(args) => note('orgs.beforeRead', args)],
          afterRead: [(args) => ({ ...args.doc, badge: `org ${String(args.doc.name)}` })],
        },
      },
      {
        slug: 'authors',
        access: everyone,
        fields: { name: { type: 'text' }, org: { type: 'relationship', relationTo: 'orgs' } },
        hooks: { afterRead: [(args) => ({ ...args.doc, label: `by ${String(args.doc.name)}` })] },
      },
      {
        slug: 'posts',
        access: everyone,
        softDelete: true,
        fields: {
          title: { type: 'text', required: true },
          status: { type: 'text' },
          author: { type: 'relationship', relationTo: 'authors' },
          secret: { type: 'text', hidden: true },
        },
        hooks: {
          beforeValidate: [async (args) => note('posts.beforeValidate', args, await storedPosts())],
          beforeChange: [
            async (args) => {
              note('posts.beforeChange', args, await storedPosts());
              if (args.data.title === 'veto') throw new ContentError(422, 'vetoed', 'Vetoed', 'A hook refused this title.');
              if (args.operation === 'restore') return { ...args.data, status: 'restored' };
              return undefined;
            },
          ],
          afterChange: [async (args) => note('posts.afterChange', args, await storedPosts())],
          beforeRead: [(args) => note('posts.beforeRead', args)],
          afterRead: [
            (args) => {
              note('posts.afterRead', args);
              return { ...args.doc, computed: `${args.operation}:${String(args.doc.title)}` };
            },
          ],
          beforeDelete: [async (args) => note('posts.beforeDelete', args, await storedPosts())],
          afterDelete: [async (args) => note('posts.afterDelete', args, await storedPosts())],
        },
      },
    ],
    globals: [
      {
        slug: 'settings',
        access: { read: () => true, update: () => true },
        fields: {
          siteName: { type: 'text' },
          tagline: {
            type: 'text',
            hooks: {
              beforeChange: [(args) => (typeof args.value === 'string' ? args.value.trim() : undefined)],
              afterRead: [(args) => (typeof args.value === 'string' ? args.value.toUpperCase() : args.value)],
            },
          },
          editedBy: { type: 'text', hidden: true },
        },
        hooks: {
          beforeChange: [
            (args) => {
              note('settings.beforeChange', args);
              return { ...args.data, editedBy: args.user?.id ?? 'server' };
            },
          ],
          afterChange: [(args) => note('settings.afterChange', args)],
          afterRead: [
            (args) => {
              note('settings.afterRead', args);
              return { ...args.doc, greeting: `Welcome to ${String(args.doc.siteName)}` };
            },
          ],
        },
      },
    ],
    endpoints: [
      (router) => {
        // Two calls through req.context in one request: both run their hooks, and share the hook context.
        router.post('/posts/pair', async (req, res) => {
          const first = await req.context!.create('posts', { title: String(req.body.title) });
          const again = await req.context!.findById('posts', first.id);
          const list = await req.context!.find('posts', { where: { id: { eq: first.id } } });
          res.status(201).json({ first, again, listed: list.docs[0] });
        });
      },
    ],
  });
});
afterAll(() => t.close());
beforeEach(() => {
  calls.length = 0;
});

describe('write answers', () => {
  it('get beforeRead and afterRead, over HTTP and through the local API, for create and update', async () => {
    const created = await request(t.app).post('/api/posts').set(...asUser(editor)).send({ title: 'Answered' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ title: 'Answered', computed: 'create:Answered' });
    const updated = await request(t.app).patch(`/api/posts/${created.body.id}`).set(...asUser(editor)).send({ title: 'Answered again' });
    expect(updated.body).toMatchObject({ computed: 'update:Answered again' });
    // A change that changes nothing still answers through afterRead.
    const unchanged = await request(t.app).patch(`/api/posts/${created.body.id}`).set(...asUser(editor)).send({});
    expect(unchanged.body).toMatchObject({ computed: 'update:Answered again' });
    const local = await t.api.local.create('posts', { title: 'Local answer' });
    expect(local).toMatchObject({ computed: 'create:Local answer' });
    expect(await t.api.local.update('posts', local.id, { status: 'x' })).toMatchObject({ computed: 'update:Local answer' });
  });

  it('of reads get beforeRead (hidden fields included) and afterRead', async () => {
    const { id } = await t.api.local.create('posts', { title: 'Read me', secret: 's3cret' });
    calls.length = 0;
    const got = await request(t.app).get(`/api/posts/${id}`).set(...asUser(editor));
    expect(got.body).toMatchObject({ id, computed: 'read:Read me' });
    expect(got.body).not.toHaveProperty('secret');
    expect(calls.find((c) => c.hook === 'posts.beforeRead')).toMatchObject({ operation: 'read', doc: { id, secret: 's3cret' } });
    const local = await t.api.local.findById('posts', id);
    expect(local).toMatchObject({ computed: 'read:Read me' });
    const listed = await t.api.local.find('posts', { where: { id: { eq: id } } });
    expect(listed.docs[0]).toMatchObject({ computed: 'read:Read me' });
  });
});

describe('delete', () => {
  it('soft: beforeDelete before the write, afterDelete after, both with the record whole', async () => {
    const { id } = await t.api.local.create('posts', { title: 'Soft', secret: 'kept' });
    calls.length = 0;
    const res = await request(t.app).delete(`/api/posts/${id}`).set(...asUser(editor));
    expect(res.status).toBe(200);
    expect(hooks()).toEqual(['posts.beforeDelete', 'posts.afterDelete']);
    const [before, after] = calls;
    expect(before).toMatchObject({ operation: 'delete', id, permanent: false, doc: { id, title: 'Soft', secret: 'kept', deletedAt: null } });
    expect(after).toMatchObject({ operation: 'delete', id, permanent: false });
    expect((await postRow(id))?.deletedAt).toBeInstanceOf(Date);
  });

  it('permanent: the same hooks, told it is permanent; afterDelete runs once the record is gone', async () => {
    const { id } = await t.api.local.create('posts', { title: 'Gone' });
    calls.length = 0;
    const stored = await storedPosts();
    const res = await request(t.app).delete(`/api/posts/${id}?permanent=true`).set(...asUser(editor));
    expect(res.status).toBe(200);
    expect(calls).toEqual([
      expect.objectContaining({ hook: 'posts.beforeDelete', permanent: true, stored }),
      expect.objectContaining({ hook: 'posts.afterDelete', permanent: true, stored: stored - 1 }),
    ]);
    expect(await postRow(id)).toBeNull();
  });

  it('through the local API runs the same hooks, soft and permanent', async () => {
    const { id } = await t.api.local.create('posts', { title: 'Local delete' });
    calls.length = 0;
    await t.api.local.delete('posts', id);
    await t.api.local.delete('posts', id, { permanent: true });
    expect(calls.map((c) => [c.hook, c.permanent])).toEqual([
      ['posts.beforeDelete', false],
      ['posts.afterDelete', false],
      ['posts.beforeDelete', true],
      ['posts.afterDelete', true],
    ]);
    expect(await postRow(id)).toBeNull();
  });
});

describe('restore', () => {
  it('runs the write hooks as a restore: beforeChange may add fields, afterChange sees the record before and after', async () => {
    const { id } = await t.api.local.create('posts', { title: 'Back', status: 'draft' });
    await t.api.local.delete('posts', id);
    calls.length = 0;
    const res = await request(t.app).post(`/api/posts/${id}/restore`).set(...asUser(editor));
    expect(res.status).toBe(200);
    expect(hooks()).toEqual(['posts.beforeValidate', 'posts.beforeChange', 'posts.afterChange', 'posts.beforeRead', 'posts.afterRead']);
    const [validate, change, after, read] = calls;
    expect(validate).toMatchObject({ operation: 'restore', id, data: {}, originalDoc: { id, status: 'draft' } });
    expect(validate.originalDoc!.deletedAt).toEqual(expect.any(String));
    expect(change).toMatchObject({ operation: 'restore', id });
    expect(after).toMatchObject({ operation: 'restore', id, previousDoc: { status: 'draft' }, doc: { status: 'restored', deletedAt: null } });
    // The answer of a write takes the read steps too, told which write it answers.
    expect(read).toMatchObject({ operation: 'restore', doc: { status: 'restored' } });
    expect(res.body).toMatchObject({ id, status: 'restored', deletedAt: null, computed: 'restore:Back' });
    expect(await postRow(id)).toMatchObject({ status: 'restored', deletedAt: null });
  });

  it('through the local API does the same', async () => {
    const { id } = await t.api.local.create('posts', { title: 'Local back' });
    await t.api.local.delete('posts', id);
    calls.length = 0;
    expect(await t.api.local.restore('posts', id)).toMatchObject({ status: 'restored', computed: 'restore:Local back' });
    expect(hooks()).toEqual(['posts.beforeValidate', 'posts.beforeChange', 'posts.afterChange', 'posts.beforeRead', 'posts.afterRead']);
  });
});

describe('batch create', () => {
  it('runs every item\'s before-hooks, in order, before any item is written; then each afterChange and afterRead', async () => {
    const stored = await storedPosts();
    const res = await request(t.app)
      .post('/api/posts')
      .set(...asUser(editor))
      .send({ data: [{ title: 'b1' }, { title: 'b2' }, { title: 'b3' }] });
    expect(res.status).toBe(201);
    expect(hooks()).toEqual([
      ...['b1', 'b2', 'b3'].flatMap(() => ['posts.beforeValidate', 'posts.beforeChange']),
      ...['b1', 'b2', 'b3'].flatMap(() => ['posts.afterChange', 'posts.beforeRead', 'posts.afterRead']),
    ]);
    expect(calls.filter((c) => c.hook === 'posts.beforeChange').map((c) => [c.data?.title, c.stored])).toEqual([
      ['b1', stored],
      ['b2', stored],
      ['b3', stored],
    ]);
    expect(calls.filter((c) => c.hook === 'posts.afterChange').map((c) => c.stored)).toEqual([stored + 3, stored + 3, stored + 3]);
    expect(res.body.data.map((p: { computed: string }) => p.computed)).toEqual(['create:b1', 'create:b2', 'create:b3']);
    // One request, one context: every item's hooks share it.
    for (const call of calls) expect(call.context).toBe(calls[0].context);
  });

  it('writes nothing of the batch when a hook refuses item 3 with a ContentError, which is the answer', async () => {
    const stored = await storedPosts();
    const res = await request(t.app)
      .post('/api/posts')
      .set(...asUser(editor))
      .send({ data: [{ title: 'ok 1' }, { title: 'ok 2' }, { title: 'veto' }, { title: 'ok 4' }] });
    expect(res.status).toBe(422);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 422, code: 'vetoed', detail: 'A hook refused this title.' });
    expect(await storedPosts()).toBe(stored);
    expect(hooks('posts.afterChange')).toEqual([]);
    await expect(t.api.local.createMany('posts', [{ title: 'ok' }, { title: 'ok' }, { title: 'veto' }])).rejects.toMatchObject({ status: 422, code: 'vetoed' });
    expect(await storedPosts()).toBe(stored);
  });

  it('validates every item before any write: a bad item 2 is a 400 naming it, and nothing is written', async () => {
    const stored = await storedPosts();
    const res = await request(t.app)
      .post('/api/posts')
      .set(...asUser(editor))
      .send({ data: [{ title: 'fine' }, { title: 5 }, { title: 'fine too' }] });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([expect.objectContaining({ index: 1, field: 'title' })]);
    expect(await storedPosts()).toBe(stored);
    expect(hooks('posts.afterChange')).toEqual([]);
  });

  it('through the local API runs the same hooks', async () => {
    const records = await t.api.local.createMany('posts', [{ title: 'l1' }, { title: 'l2' }]);
    const each = ['posts.afterChange', 'posts.beforeRead', 'posts.afterRead'];
    expect(hooks()).toEqual(['posts.beforeValidate', 'posts.beforeChange', 'posts.beforeValidate', 'posts.beforeChange', ...each, ...each]);
    expect(records.map((r) => r.computed)).toEqual(['create:l1', 'create:l2']);
    for (const call of calls) expect(call.context).toBe(calls[0].context);
  });
});

describe('custom endpoints', () => {
  it('run hooks for calls through req.context, sharing one context with the request\'s other calls', async () => {
    const res = await request(t.app).post('/api/posts/pair').set(...asUser(editor)).send({ title: 'From an endpoint' });
    expect(res.status).toBe(201);
    expect(res.body.first).toMatchObject({ computed: 'create:From an endpoint' });
    expect(res.body.again).toMatchObject({ computed: 'read:From an endpoint' });
    expect(res.body.listed).toMatchObject({ computed: 'read:From an endpoint' });
    const read = ['posts.beforeRead', 'posts.afterRead'];
    expect(hooks()).toEqual(['posts.beforeValidate', 'posts.beforeChange', 'posts.afterChange', ...read, ...read, ...read]);
    const contexts = calls.map((c) => c.context);
    for (const context of contexts) expect(context).toBe(contexts[0]);
  });
});

describe('population', () => {
  let postId: string;
  beforeAll(async () => {
    const org = await t.api.local.create('orgs', { name: 'Acme', taxId: 'T-1' });
    const author = await t.api.local.create('authors', { name: 'Ann', org: org.id });
    postId = (await t.api.local.create('posts', { title: 'Deep', author: author.id })).id;
  });

  it('gives each populated record its own collection\'s read hooks, at depth 1 and 2', async () => {
    const one = await request(t.app).get(`/api/posts/${postId}?depth=1`).set(...asUser(editor));
    expect(one.body).toMatchObject({ computed: 'read:Deep', author: { name: 'Ann', label: 'by Ann' } });
    expect(typeof one.body.author.org).toBe('string');
    calls.length = 0;
    const two = await request(t.app).get(`/api/posts/${postId}?depth=2`).set(...asUser(editor));
    expect(two.body.author).toMatchObject({ label: 'by Ann', org: { name: 'Acme', badge: 'org Acme' } });
    expect(two.body.author.org).not.toHaveProperty('taxId');
    // beforeRead of the populated org sees its hidden field; the answer never does.
    expect(calls.find((c) => c.hook === 'orgs.beforeRead')).toMatchObject({ operation: 'read', doc: { name: 'Acme', taxId: 'T-1' } });
  });

  it('the same in lists with include, and through the local API', async () => {
    const listed = await request(t.app).get(`/api/posts?where[id][eq]=${postId}&include=author,author.org`).set(...asUser(editor));
    expect(listed.status).toBe(200);
    expect(listed.body.data[0]).toMatchObject({ computed: 'read:Deep', author: { label: 'by Ann', org: { badge: 'org Acme' } } });
    const local = await t.api.local.findById('posts', postId, { depth: 2 });
    expect(local).toMatchObject({ author: { label: 'by Ann', org: { badge: 'org Acme' } } });
    expect((local.author as { org: Record<string, unknown> }).org).not.toHaveProperty('taxId');
  });
});

describe('globals', () => {
  it('run beforeChange (then field hooks), afterChange and afterRead over HTTP', async () => {
    const first = await request(t.app).patch('/api/globals/settings').set(...asUser(editor)).send({ siteName: 'Site', tagline: '  hello  ' });
    expect(first.status).toBe(200);
    expect(hooks()).toEqual(['settings.beforeChange', 'settings.afterChange', 'settings.afterRead']);
    expect(calls[0]).toMatchObject({ operation: 'update', data: { siteName: 'Site', tagline: '  hello  ' } });
    expect(calls[1]).toMatchObject({ operation: 'update', doc: { siteName: 'Site', tagline: 'hello', editedBy: editor.id } });
    // The field's afterRead upper-cases; the global's afterRead computes; the hidden field stays out.
    expect(first.body).toMatchObject({ siteName: 'Site', tagline: 'HELLO', greeting: 'Welcome to Site' });
    expect(first.body).not.toHaveProperty('editedBy');
    expect(await t.connection.db!.collection<{ _id: string }>('globals').findOne({ _id: 'settings' })).toMatchObject({ siteName: 'Site', tagline: 'hello', editedBy: editor.id });

    calls.length = 0;
    const second = await request(t.app).patch('/api/globals/settings').set(...asUser(editor)).send({ siteName: 'Site 2' });
    expect(calls[1]).toMatchObject({ previousDoc: { siteName: 'Site', tagline: 'hello' }, doc: { siteName: 'Site 2' } });
    expect(second.body).toMatchObject({ siteName: 'Site 2', tagline: 'HELLO', greeting: 'Welcome to Site 2' });

    const read = await request(t.app).get('/api/globals/settings');
    expect(read.body).toMatchObject({ siteName: 'Site 2', tagline: 'HELLO', greeting: 'Welcome to Site 2' });
    expect(read.body).not.toHaveProperty('editedBy');
  });

  it('run the same hooks through the local API', async () => {
    const written = await t.api.local.updateGlobal('settings', { tagline: ' local ' });
    expect(written).toMatchObject({ tagline: 'LOCAL', greeting: 'Welcome to Site 2' });
    expect(hooks()).toEqual(['settings.beforeChange', 'settings.afterChange', 'settings.afterRead']);
    expect(calls[1].doc).toMatchObject({ editedBy: 'server', tagline: 'local' });
    expect(await t.api.local.findGlobal('settings')).toMatchObject({ tagline: 'LOCAL', greeting: 'Welcome to Site 2' });
  });
});

describe('registration', () => {
  const contexts: Array<[string, HookContext]> = [];
  let auth: TestApp;
  beforeAll(async () => {
    auth = await createTestApp({
      auth: { jwtSecret: 'test-secret-0123456789-abcdefghijklmnopq', passwordHash: { cost: 1024, blockSize: 8, parallelization: 1 } },
      email: { send: () => undefined },
      collections: [
        {
          slug: 'users',
          auth: true,
          fields: { name: { type: 'text' } },
          hooks: {
            beforeChange: [({ context }) => void contexts.push(['beforeChange', context])],
            afterChange: [({ context }) => void contexts.push(['afterChange', context])],
            afterRead: [({ context }) => void contexts.push(['afterRead', context])],
          },
        },
      ],
    });
  });
  afterAll(() => auth.close());
  beforeEach(() => {
    contexts.length = 0;
  });

  it('runs the auth collection\'s hooks with one context, over HTTP and through api.auth', async () => {
    const res = await request(auth.app).post('/api/users/register').send({ email: 'hooked@example.com', password: 'Corr3ct-Horse!' });
    expect(res.status).toBe(201);
    expect(contexts.map(([hook]) => hook)).toEqual(['beforeChange', 'afterChange', 'afterRead']);
    for (const [, context] of contexts) expect(context).toBe(contexts[0][1]);

    contexts.length = 0;
    await auth.api.auth.register('local-hooked@example.com', 'Corr3ct-Horse!');
    expect(contexts.map(([hook]) => hook)).toEqual(['beforeChange', 'afterChange', 'afterRead']);
    for (const [, context] of contexts) expect(context).toBe(contexts[0][1]);
  });
});
