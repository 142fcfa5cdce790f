// Collection and field hooks over HTTP and through the local API: the steps of a write in order (beforeValidate,
// validation, beforeChange of the collection then the fields, the write, afterChange), the args each hook gets,
// lists run in order and awaited, one `context` per request shared by nested calls, and `api` bound to the caller.
import { Types } from 'mongoose';
import request from 'supertest';
import { ForbiddenError } from '../../lib';
import type { AfterChangeArgs, BeforeChangeArgs, FieldHookArgs, HookContext, ReadHookArgs } from '../../lib/config/hooks';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';

const editor = { id: '0000000000000000000000e1', role: 'editor' };
const admin = { id: '0000000000000000000000a1', role: 'admin' };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const everyone = { read: () => true, create: () => true, update: () => true, delete: () => true };

/** One hook call as it happened: which hook, and a copy of what it was given at that moment. */
interface Call {
  hook: string;
  operation?: string;
  collection?: string;
  data?: Record<string, unknown>;
  doc?: Record<string, unknown>;
  originalDoc?: Record<string, unknown>;
  previousDoc?: Record<string, unknown>;
  value?: unknown;
  id?: string;
  userId?: string | null;
  hasReq: boolean;
  context: HookContext;
  /** Records of the collection stored when the hook ran. */
  stored?: number;
}

let t: TestApp;
const calls: Call[] = [];
/** What a test plugs into the last afterChange hook of `articles` (the api and recursion cases). */
let afterChangePlug: ((args: AfterChangeArgs) => unknown) | undefined;

const copy = <T>(value: T): T => (value === undefined ? value : structuredClone(value));

/** What any hook is given (collection, field, before or after), loosely: each hook has some of it. */
type AnyHookArgs = Partial<Omit<BeforeChangeArgs & AfterChangeArgs, 'operation'> & Pick<FieldHookArgs, 'value'>> & Pick<ReadHookArgs, 'operation' | 'context'>;

function note(hook: string, args: AnyHookArgs, stored?: number): void {
  calls.push({
    hook,
    operation: args.operation,
    collection: args.collection,
    data: copy(args.data),
    doc: copy(args.doc),
    originalDoc: copy(args.originalDoc),
    previousDoc: copy(args.previousDoc),
    value: copy(args.value),
    id: args.id,
    userId: args.user === undefined ? undefined : (args.user?.id ?? null),
    hasReq: args.req !== undefined,
    context: args.context!,
    stored,
  });
}

const storedArticles = () => t.connection.db!.collection('articles').countDocuments();
const hooksOf = (collection: string) => calls.filter((c) => c.collection === collection).map((c) => c.hook);

beforeAll(async () => {
  t = await createTestApp({
    collections: [
      {
        slug: 'articles',
        access: everyone,
        softDelete: true,
        fields: {
          title: { type: 'text', required: true },
          // Required, and filled from the title by beforeValidate when the client leaves it out.
          slug: {
            type: 'text',
            required: true,
            hooks: {
              beforeChange: [
                (args) => {
                  note('fields.slug.beforeChange[0]', args);
                  return typeof args.value === 'string' ? args.value.toLowerCase() : undefined;
                },
              ],
            },
          },
          summary: { type: 'text' },
          views: { type: 'number' },
          secret: { type: 'text', hidden: true },
        },
        hooks: {
          beforeValidate: [
            function fillSlug(args) {
              note('beforeValidate[0]', args);
              if (args.data.slug === undefined && typeof args.data.title === 'string') return { ...args.data, slug: args.data.title.replace(/\s+/g, '-') };
              return undefined;
            },
            async (args) => {
              await sleep(5);
              note('beforeValidate[1]', args);
            },
          ],
          beforeChange: [
            async (args) => {
              note('beforeChange[0]', args);
              await sleep(5);
              // In place: returning nothing keeps the (changed) body.
              if (args.operation === 'create') args.data.summary = `about ${String(args.data.title)}`;
              args.context.sawBeforeChange = true;
            },
            (args) => {
              note('beforeChange[1]', args);
              return { ...args.data, secret: 'set by a hook' };
            },
          ],
          afterChange: [
            async (args) => note('afterChange[0]', args, await storedArticles()),
            async (args) => {
              note('afterChange[1]', args);
              return afterChangePlug?.(args);
            },
          ],
          afterRead: [(args) => note('afterRead[0]', args)],
        },
      },
      {
        // Each user reads only its own audit entries; only admins write them.
        slug: 'audit',
        fields: { action: { type: 'text' }, article: { type: 'text' }, actor: { type: 'text' } },
        access: {
          read: ({ user }) => (user ? { actor: { eq: user.id } } : false),
          create: ({ user }) => user?.role === 'admin',
          update: () => false,
          delete: () => false,
        },
        hooks: { beforeChange: [(args) => note('audit.beforeChange[0]', args)] },
      },
    ],
  });
});
afterAll(() => t.close());
beforeEach(() => {
  calls.length = 0;
  afterChangePlug = undefined;
});

const WRITE_ORDER = ['beforeValidate[0]', 'beforeValidate[1]', 'beforeChange[0]', 'beforeChange[1]', 'fields.slug.beforeChange[0]', 'afterChange[0]', 'afterChange[1]', 'afterRead[0]'];

describe('a create', () => {
  it('over HTTP runs beforeValidate, validation, beforeChange (collection, then fields), the write, afterChange, afterRead, in that order', async () => {
    const res = await request(t.app).post('/api/articles').set(...asUser(editor)).send({ title: 'Hello World', views: 1 });
    expect(res.status).toBe(201);
    expect(hooksOf('articles')).toEqual(WRITE_ORDER);
    const [validate0, validate1, change0, change1, field, after0, , read] = calls;
    // beforeValidate fills the required slug before validation would refuse the body.
    expect(validate0).toMatchObject({ operation: 'create', collection: 'articles', data: { title: 'Hello World', views: 1 }, userId: editor.id, hasReq: true });
    expect(validate0.originalDoc).toBeUndefined();
    expect(validate1.data).toEqual({ title: 'Hello World', views: 1, slug: 'Hello-World' });
    // Each hook of a list sees what the one before it produced (awaited, in place or returned).
    expect(change0.data).toEqual({ title: 'Hello World', views: 1, slug: 'Hello-World' });
    expect(change1.data).toMatchObject({ summary: 'about Hello World' });
    expect(field).toMatchObject({ value: 'Hello-World', data: { summary: 'about Hello World', secret: 'set by a hook' } });
    // afterChange: the record is stored, and it sees it whole (hidden fields too) and the body as written.
    expect(after0).toMatchObject({ operation: 'create', id: res.body.id, stored: 1, doc: { id: res.body.id, slug: 'hello-world', secret: 'set by a hook' } });
    expect(after0.data).toEqual({ title: 'Hello World', views: 1, slug: 'hello-world', summary: 'about Hello World', secret: 'set by a hook' });
    expect(after0.previousDoc).toBeUndefined();
    // afterRead gets the record as the client sees it.
    expect(read.doc).not.toHaveProperty('secret');
    expect(res.body).toMatchObject({ title: 'Hello World', slug: 'hello-world', summary: 'about Hello World', views: 1 });
    expect(res.body).not.toHaveProperty('secret');
    const row = await t.connection.db!.collection('articles').findOne({ _id: new Types.ObjectId(res.body.id as string) });
    expect(row).toMatchObject({ slug: 'hello-world', secret: 'set by a hook', summary: 'about Hello World' });
  });

  it('through the local API runs the same steps, without a request and as no user', async () => {
    const record = await t.api.local.create('articles', { title: 'Local One' });
    expect(hooksOf('articles')).toEqual(WRITE_ORDER);
    expect(calls[0]).toMatchObject({ operation: 'create', userId: null, hasReq: false });
    expect(record).toMatchObject({ slug: 'local-one', summary: 'about Local One' });
    expect(record).not.toHaveProperty('secret');
  });

  it('refuses the client\'s own mistakes with a 400 before beforeChange runs, and writes nothing', async () => {
    const before = await storedArticles();
    const res = await request(t.app).post('/api/articles').set(...asUser(editor)).send({ title: 'Bad', views: 'many' });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([expect.objectContaining({ field: 'views' })]);
    // beforeValidate comes before validation (it may fill fields in); nothing after it ran.
    expect(hooksOf('articles')).toEqual(['beforeValidate[0]', 'beforeValidate[1]']);
    expect(await storedArticles()).toBe(before);
  });

  it('refuses a body naming a field that does not exist (or is hidden) before any hook runs', async () => {
    for (const body of [{ title: 'x', nope: 1 }, { title: 'x', secret: 'mine' }]) {
      const res = await request(t.app).post('/api/articles').set(...asUser(editor)).send(body);
      expect(res.status).toBe(400);
      expect(res.body.errors[0]).toMatchObject({ code: 'unknown_field' });
    }
    const notAnObject = await request(t.app).post('/api/articles').set(...asUser(editor)).set('Content-Type', 'application/json').send('"just text"');
    expect(notAnObject.status).toBe(400);
    await expect(t.api.local.create('articles', 'text' as never)).rejects.toMatchObject({ status: 400 });
    expect(calls).toEqual([]);
  });
});

describe('an update', () => {
  it('gives beforeValidate and beforeChange the stored record and afterChange the record before and after', async () => {
    const created = await t.api.local.create('articles', { title: 'Before', views: 1 });
    calls.length = 0;
    const res = await request(t.app).patch(`/api/articles/${created.id}`).set(...asUser(editor)).send({ views: 2 });
    expect(res.status).toBe(200);
    expect(hooksOf('articles')).toEqual(WRITE_ORDER);
    const byHook = Object.fromEntries(calls.map((c) => [c.hook, c]));
    expect(byHook['beforeValidate[0]']).toMatchObject({ operation: 'update', id: created.id, data: { views: 2 }, originalDoc: { id: created.id, views: 1, secret: 'set by a hook' } });
    expect(byHook['beforeChange[0]']).toMatchObject({ operation: 'update', id: created.id, originalDoc: { views: 1 } });
    // A field hook runs on every write, whether or not the body sets its field.
    expect(byHook['fields.slug.beforeChange[0]']).toMatchObject({ value: undefined, operation: 'update', originalDoc: { slug: 'before' } });
    expect(byHook['afterChange[0]']).toMatchObject({ operation: 'update', id: created.id, previousDoc: { views: 1 }, doc: { views: 2, slug: 'before' } });
    expect(res.body).toMatchObject({ id: created.id, views: 2, summary: 'about Before' });
  });

  it('through the local API gets the same args', async () => {
    const created = await t.api.local.create('articles', { title: 'Local Before', views: 5 });
    calls.length = 0;
    await t.api.local.update('articles', created.id, { views: 6 }, { user: admin });
    expect(hooksOf('articles')).toEqual(WRITE_ORDER);
    expect(calls.find((c) => c.hook === 'afterChange[0]')).toMatchObject({ previousDoc: { views: 5 }, doc: { views: 6 }, userId: admin.id, hasReq: false });
  });
});

describe('context', () => {
  const contextsOf = (collection?: string) => calls.filter((c) => !collection || c.collection === collection).map((c) => c.context);

  it('is one object shared by every hook of one HTTP request', async () => {
    const res = await request(t.app).post('/api/articles').set(...asUser(editor)).send({ title: 'Shared' });
    expect(res.status).toBe(201);
    const contexts = contextsOf();
    expect(contexts).toHaveLength(WRITE_ORDER.length);
    for (const context of contexts) expect(context).toBe(contexts[0]);
    expect(contexts[0]).toMatchObject({ sawBeforeChange: true });
  });

  it('is one object shared by every hook of one local API call, and a new one for the next call', async () => {
    await t.api.local.create('articles', { title: 'Local Shared' });
    const first = contextsOf();
    expect(first).toHaveLength(WRITE_ORDER.length);
    for (const context of first) expect(context).toBe(first[0]);
    calls.length = 0;
    await t.api.local.create('articles', { title: 'Local Shared Again' });
    expect(contextsOf()[0]).not.toBe(first[0]);
  });

  it('is one object for the afterRead hooks of every record of a list', async () => {
    await t.api.local.createMany('articles', [{ title: 'List A' }, { title: 'List B' }]);
    for (const list of [() => request(t.app).get('/api/articles?limit=5').set(...asUser(editor)), () => t.api.local.find('articles', { limit: 5 })]) {
      calls.length = 0;
      await list();
      const contexts = contextsOf();
      expect(contexts.map((_, index) => calls[index].hook)).toEqual(Array(5).fill('afterRead[0]'));
      for (const context of contexts) expect(context).toBe(contexts[0]);
    }
  });

  it('is the one the caller passes to the local API', async () => {
    const context: HookContext = { from: 'server code' };
    await t.api.local.create('articles', { title: 'Given Context' }, { context });
    for (const seen of contextsOf()) expect(seen).toBe(context);
    expect(context.sawBeforeChange).toBe(true);
  });

  it('is shared with the hooks of nested calls through args.api, over HTTP and through the local API', async () => {
    afterChangePlug = async ({ api, doc, context }) => {
      context.auditedBy = 'articles.afterChange';
      await api.create('audit', { action: 'create', article: doc.id, actor: editor.id }, { overrideAccess: true });
    };
    const res = await request(t.app).post('/api/articles').set(...asUser(editor)).send({ title: 'Audited' });
    expect(res.status).toBe(201);
    const [articleContext] = contextsOf('articles');
    const [auditCall] = calls.filter((c) => c.collection === 'audit');
    expect(auditCall.context).toBe(articleContext);
    expect(auditCall.context).toMatchObject({ sawBeforeChange: true, auditedBy: 'articles.afterChange' });
    // The nested call carries the request along.
    expect(auditCall.hasReq).toBe(true);

    calls.length = 0;
    await t.api.local.create('articles', { title: 'Audited Locally' });
    const [localContext] = contextsOf('articles');
    expect(calls.filter((c) => c.collection === 'audit').map((c) => c.context)).toEqual([localContext]);
    expect(calls.find((c) => c.collection === 'audit')!.context).toBe(localContext);
  });
});

describe('args.api', () => {
  /** What the last article write's afterChange could do through args.api. */
  let outcome: { created?: unknown; refused?: unknown; visible?: number; all?: number } = {};
  beforeEach(() => {
    outcome = {};
    afterChangePlug = async ({ api, doc }) => {
      try {
        outcome.created = await api.create('audit', { action: 'bound', article: doc.id, actor: editor.id });
      } catch (error) {
        outcome.refused = error;
      }
      outcome.visible = (await api.find('audit')).total;
      outcome.all = (await api.find('audit', { overrideAccess: true })).total;
    };
  });

  it('runs as the hook\'s caller, under its access; { overrideAccess: true } lifts it', async () => {
    const stored = await t.connection.db!.collection('audit').countDocuments();
    const mine = await t.connection.db!.collection('audit').countDocuments({ actor: editor.id });
    const res = await request(t.app).post('/api/articles').set(...asUser(editor)).send({ title: 'As Editor' });
    expect(res.status).toBe(201);
    // The editor may not write audit entries, and reads only its own.
    expect(outcome.refused).toBeInstanceOf(ForbiddenError);
    expect(outcome.created).toBeUndefined();
    expect(outcome.visible).toBe(mine);
    expect(outcome.all).toBe(stored);
  });

  it('runs as an admin when an admin writes', async () => {
    const res = await request(t.app).post('/api/articles').set(...asUser(admin)).send({ title: 'As Admin' });
    expect(res.status).toBe(201);
    expect(outcome.refused).toBeUndefined();
    expect(outcome.created).toMatchObject({ action: 'bound', article: res.body.id });
    // The admin reads only entries whose actor it is: none.
    expect(outcome.visible).toBe(0);
  });

  it('overrides access for a local API call without a user, and applies it for one with a user', async () => {
    await t.api.local.create('articles', { title: 'Server Code' });
    expect(outcome.refused).toBeUndefined();
    expect(outcome.created).toMatchObject({ action: 'bound' });
    await t.api.local.create('articles', { title: 'On Behalf' }, { user: editor });
    expect(outcome.refused).toBeInstanceOf(ForbiddenError);
  });
});

describe('a recursive write from afterChange into the same collection', () => {
  beforeEach(() => {
    afterChangePlug = async ({ api, doc, context }) => {
      // The guard: the copy's own afterChange sees the mark and stops.
      if (context.copying) return;
      context.copying = true;
      await api.create('articles', { title: `${String(doc.title)} copy` });
    };
  });

  it('over HTTP runs the nested write\'s own hooks once and stops', async () => {
    const before = await storedArticles();
    const res = await request(t.app).post('/api/articles').set(...asUser(editor)).send({ title: 'Original' });
    expect(res.status).toBe(201);
    expect(await storedArticles()).toBe(before + 2);
    const count = (hook: string) => calls.filter((c) => c.hook === hook).length;
    for (const hook of ['beforeValidate[0]', 'beforeChange[0]', 'fields.slug.beforeChange[0]', 'afterChange[0]', 'afterChange[1]', 'afterRead[0]']) expect(count(hook)).toBe(2);
    expect(res.body).toMatchObject({ title: 'Original' });
    const copyRow = await t.connection.db!.collection('articles').findOne({ title: 'Original copy' });
    expect(copyRow).toMatchObject({ slug: 'original-copy', summary: 'about Original copy' });
  });

  it('through the local API does the same', async () => {
    const before = await storedArticles();
    await t.api.local.create('articles', { title: 'Local Original' });
    expect(await storedArticles()).toBe(before + 2);
    expect(calls.filter((c) => c.hook === 'afterChange[0]')).toHaveLength(2);
  });
});
