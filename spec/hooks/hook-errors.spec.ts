// What hooks' failures answer, over HTTP and through the local API: a ContentError is the answer (its status
// and code, nothing written); anything else is a 500 without detail, logged naming the hook, and given to
// afterError; afterChange and afterDelete cannot undo a stored write. A hook's output is checked before the
// write, a hook that never settles is cut by the request deadline with nothing written, and hidden fields
// stay out of answers whatever afterRead returns.
import { Types } from 'mongoose';
import request from 'supertest';
import { type AccessResult, ContentError, type EndpointHandlerArgs, ForbiddenError, NotFoundError } from '../../lib';
import type { AfterErrorArgs, BeforeChangeArgs, AfterChangeArgs, DeleteHookArgs, FieldHookArgs, ReadHookArgs } from '../../lib/config/hooks';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';

const editor = asUser({ id: '0000000000000000000000e1', role: 'editor' });
const everyone = { read: () => true, create: () => true, update: () => true, delete: () => true };
const PROBLEM = /application\/problem\+json/;
const GENERIC = 'An unexpected error occurred.';
import { quietFor } from '../helpers/eventually';

/** What a test plugs into the items' hooks; each configured hook calls its plug, if any. */
interface Plugs {
  beforeValidate?: (args: BeforeChangeArgs) => unknown;
  beforeChange?: (args: BeforeChangeArgs) => unknown;
  title?: (args: FieldHookArgs) => unknown;
  afterChange?: (args: AfterChangeArgs) => unknown;
  beforeRead?: (args: ReadHookArgs) => unknown;
  afterRead?: (args: ReadHookArgs) => unknown;
  beforeDelete?: (args: DeleteHookArgs) => unknown;
  afterDelete?: (args: DeleteHookArgs) => unknown;
  afterError?: (args: AfterErrorArgs) => unknown;
  settings?: (args: BeforeChangeArgs) => unknown;
  /** The items' read and create rules; absent: allowed. */
  readRule?: () => AccessResult;
  createRule?: () => AccessResult;
}

let plug: Plugs = {};
const afterErrors: AfterErrorArgs[] = [];
const logged: unknown[][] = [];

/** Everything logged at error level, messages and causes, as one text. */
function logText(): string {
  const describe = (value: unknown): string => {
    if (!(value instanceof Error)) return String(value);
    return value.cause === undefined ? value.message : `${value.message} <- ${describe(value.cause)}`;
  };
  return logged.map((entry) => entry.map(describe).join(' ')).join('\n');
}

function hooksConfig() {
  return {
    collections: [
      {
        slug: 'items',
        access: { ...everyone, read: () => plug.readRule?.() ?? true, create: () => plug.createRule?.() ?? true },
        softDelete: true,
        fields: {
          title: { type: 'text' as const, required: true, hooks: { beforeChange: [function pluggedTitle(args: FieldHookArgs) { return plug.title?.(args); }] } },
          count: { type: 'number' as const },
          secret: { type: 'text' as const, hidden: true },
        },
        hooks: {
          beforeValidate: [function pluggedBeforeValidate(args: BeforeChangeArgs) { return plug.beforeValidate?.(args); }],
          beforeChange: [function pluggedBeforeChange(args: BeforeChangeArgs) { return plug.beforeChange?.(args); }],
          afterChange: [function pluggedAfterChange(args: AfterChangeArgs) { return plug.afterChange?.(args); }],
          beforeRead: [function pluggedBeforeRead(args: ReadHookArgs) { return plug.beforeRead?.(args); }],
          afterRead: [function pluggedAfterRead(args: ReadHookArgs) { return plug.afterRead?.(args); }],
          beforeDelete: [function pluggedBeforeDelete(args: DeleteHookArgs) { return plug.beforeDelete?.(args); }],
          afterDelete: [function pluggedAfterDelete(args: DeleteHookArgs) { return plug.afterDelete?.(args); }],
          afterError: [
            (args: AfterErrorArgs) => {
              afterErrors.push(args);
              return plug.afterError?.(args);
            },
          ],
        },
      },
    ],
    globals: [
      {
        slug: 'settings',
        access: { read: () => true, update: () => true },
        fields: { siteName: { type: 'text' as const } },
        hooks: { beforeChange: [function pluggedSettings(args: BeforeChangeArgs) { return plug.settings?.(args); }] },
      },
    ],
    endpoints: [
      {
        path: '/items-through-context',
        method: 'post' as const,
        handler: ({ req }: EndpointHandlerArgs) => req.context!.create('items', { title: 'through context' }),
      },
      {
        path: '/odd-answer',
        method: 'post' as const,
        handler: () => {
          throw new ContentError(302, 'moved', 'Found', 'Look elsewhere.');
        },
      },
    ],
    logger: { error: (...args: unknown[]) => logged.push(args), warn: () => undefined, info: () => undefined, debug: () => undefined },
  };
}

let t: TestApp;
const items = () => t.connection.db!.collection('items');
const row = (id: string) => items().findOne({ _id: new Types.ObjectId(id) });

beforeAll(async () => {
  t = await createTestApp(hooksConfig());
});
afterAll(() => t.close());
beforeEach(() => {
  plug = {};
  afterErrors.length = 0;
  logged.length = 0;
});
afterEach(() => expect(t.hostErrors).toEqual([]));

describe('a ContentError from a hook', () => {
  const refusal = () => new ContentError(422, 'not_now', 'Unprocessable', 'Items cannot be written now.');

  it.each([
    ['beforeValidate', (p: Plugs, error: Error) => (p.beforeValidate = () => { throw error; })],
    ['beforeChange', (p: Plugs, error: Error) => (p.beforeChange = async () => { throw error; })],
    ['a field beforeChange', (p: Plugs, error: Error) => (p.title = () => { throw error; })],
  ])('from %s answers with its status and code, and a create writes nothing', async (_name, set) => {
    set(plug, refusal());
    const stored = await items().countDocuments();
    const res = await request(t.app).post('/api/items').set(...editor).send({ title: 'refused' });
    expect(res.status).toBe(422);
    expect(res.headers['content-type']).toMatch(PROBLEM);
    expect(res.body).toMatchObject({ status: 422, code: 'not_now', title: 'Unprocessable', detail: 'Items cannot be written now.' });
    expect(await items().countDocuments()).toBe(stored);
    // The host's own answer: not an unexpected failure, so neither logged nor given to afterError.
    expect(afterErrors).toEqual([]);
    expect(logged).toEqual([]);
    set(plug, new ForbiddenError('Not you.'));
    await expect(t.api.local.create('items', { title: 'refused' })).rejects.toBeInstanceOf(ForbiddenError);
    expect(await items().countDocuments()).toBe(stored);
  });

  it('from beforeChange leaves an update, a restore and a global unwritten', async () => {
    const { id } = await t.api.local.create('items', { title: 'stays', count: 1 });
    plug.beforeChange = () => {
      throw new ForbiddenError('Frozen.');
    };
    const patched = await request(t.app).patch(`/api/items/${id}`).set(...editor).send({ count: 2 });
    expect(patched.status).toBe(403);
    expect(patched.body).toMatchObject({ code: 'forbidden', detail: 'Frozen.' });
    expect(await row(id)).toMatchObject({ count: 1 });

    plug = {};
    await t.api.local.delete('items', id);
    plug.beforeChange = () => {
      throw new ForbiddenError('Frozen.');
    };
    expect((await request(t.app).post(`/api/items/${id}/restore`).set(...editor)).status).toBe(403);
    expect((await row(id))?.deletedAt).toBeInstanceOf(Date);

    plug.settings = () => {
      throw new ContentError(409, 'locked', 'Locked', 'Settings are locked.');
    };
    const global = await request(t.app).patch('/api/globals/settings').set(...editor).send({ siteName: 'x' });
    expect(global.status).toBe(409);
    expect(global.body).toMatchObject({ code: 'locked' });
    expect(await t.connection.db!.collection<{ _id: string }>('globals').countDocuments({ _id: 'settings' })).toBe(0);
    expect(afterErrors).toEqual([]);
  });

  it('from beforeDelete vetoes a soft and a permanent delete', async () => {
    const { id } = await t.api.local.create('items', { title: 'kept' });
    plug.beforeDelete = ({ doc }) => {
      if (doc.title === 'kept') throw new ForbiddenError('Kept items cannot be deleted.');
    };
    for (const path of [`/api/items/${id}`, `/api/items/${id}?permanent=true`]) {
      const res = await request(t.app).delete(path).set(...editor);
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: 'forbidden', detail: 'Kept items cannot be deleted.' });
    }
    await expect(t.api.local.delete('items', id)).rejects.toBeInstanceOf(ForbiddenError);
    expect(await row(id)).toMatchObject({ title: 'kept', deletedAt: null });
  });

  it('from a read hook is the answer of the read', async () => {
    const { id } = await t.api.local.create('items', { title: 'unseen' });
    plug.afterRead = () => {
      throw new NotFoundError('Not here.');
    };
    const res = await request(t.app).get(`/api/items/${id}`).set(...editor);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'not_found', detail: 'Not here.' });
  });
});

describe('any other error from a hook', () => {
  it.each([
    ['beforeValidate', 'hooks.beforeValidate[0] (pluggedBeforeValidate)', (p: Plugs, error: unknown) => (p.beforeValidate = () => { throw error; })],
    ['beforeChange', 'hooks.beforeChange[0] (pluggedBeforeChange)', (p: Plugs, error: unknown) => (p.beforeChange = async () => { throw error; })],
    ['a field beforeChange', 'fields.title.hooks.beforeChange[0] (pluggedTitle)', (p: Plugs, error: unknown) => (p.title = () => { throw error; })],
  ])('from %s is a 500 without detail, logged naming the hook, given to afterError; nothing is written', async (_name, label, set) => {
    const error = new Error('connection string mongodb://admin:hunter2@db');
    set(plug, error);
    const stored = await items().countDocuments();
    const res = await request(t.app).post('/api/items').set(...editor).send({ title: 'boom' });
    expect(res.status).toBe(500);
    expect(res.headers['content-type']).toMatch(PROBLEM);
    expect(res.body).toEqual({ type: 'urn:content-router:problem:internal_error', title: 'Internal server error', status: 500, detail: GENERIC, code: 'internal_error' });
    expect(res.text).not.toContain('hunter2');
    expect(await items().countDocuments()).toBe(stored);
    expect(logText()).toContain(`"items" ${label} hook failed: connection string`);
    expect(afterErrors).toHaveLength(1);
    expect(afterErrors[0]).toMatchObject({ operation: 'create', collection: 'items', user: { role: 'editor' } });
    expect((afterErrors[0].error as Error).message).toContain(label);
    expect((afterErrors[0].error as Error).cause).toBe(error);
  });

  it('from beforeDelete is a 500 and the record stays', async () => {
    const { id } = await t.api.local.create('items', { title: 'stays' });
    plug.beforeDelete = () => {
      throw new TypeError('undefined is not a function');
    };
    const res = await request(t.app).delete(`/api/items/${id}`).set(...editor);
    expect(res.status).toBe(500);
    expect(res.body.detail).toBe(GENERIC);
    expect(await row(id)).toMatchObject({ deletedAt: null });
    expect(logText()).toContain('"items" hooks.beforeDelete[0] (pluggedBeforeDelete) hook failed: undefined is not a function');
    expect(afterErrors.map((a) => a.operation)).toEqual(['delete']);
  });

  it('from a read hook is a 500, given to afterError as a read', async () => {
    const { id } = await t.api.local.create('items', { title: 'broken read' });
    plug.beforeRead = () => {
      throw new RangeError('bad');
    };
    const res = await request(t.app).get(`/api/items/${id}`).set(...editor);
    expect(res.status).toBe(500);
    expect(logText()).toContain('"items" hooks.beforeRead[0] (pluggedBeforeRead) hook failed: bad');
    expect(afterErrors.map((a) => a.operation)).toEqual(['read']);
  });

  it('reaches afterError through the local API too (the caller gets the error)', async () => {
    plug.beforeChange = () => {
      throw new Error('local boom');
    };
    await expect(t.api.local.create('items', { title: 'x' })).rejects.toThrow(/hooks\.beforeChange\[0\].*local boom/);
    expect(afterErrors).toHaveLength(1);
  });

  it('is still the answer when an afterError hook fails too, which is logged', async () => {
    plug.beforeChange = () => {
      throw new Error('first');
    };
    plug.afterError = () => {
      throw new Error('second');
    };
    const res = await request(t.app).post('/api/items').set(...editor).send({ title: 'x' });
    expect(res.status).toBe(500);
    expect(logText()).toContain('hooks.afterError[0] hook failed');
    expect(logText()).toContain('first');
  });

  it.each([
    ['a string', 'x'],
    ['an object with a status', { status: 403, message: 'token abc123 expired' }],
    ['null', null],
  ])('thrown as a non-Error value (%s) is a 500 with nothing leaked', async (_name, thrown) => {
    plug.beforeChange = () => {
      throw thrown;
    };
    const stored = await items().countDocuments();
    const res = await request(t.app).post('/api/items').set(...editor).send({ title: 'x' });
    expect(res.status).toBe(500);
    expect(res.body).toMatchObject({ code: 'internal_error', detail: GENERIC });
    expect(res.text).not.toContain('abc123');
    expect(await items().countDocuments()).toBe(stored);
    expect(logText()).toContain('"items" hooks.beforeChange[0] (pluggedBeforeChange) hook failed: it threw a non-Error value');
    expect(afterErrors).toHaveLength(1);
  });
});

describe('a ContentError with a status that is not an error status (a host bug)', () => {
  const INTERNAL = { type: 'urn:content-router:problem:internal_error', title: 'Internal server error', status: 500, detail: GENERIC, code: 'internal_error' };
  const success = () => new ContentError(200, 'fine', 'OK', 'Secret detail 42.');
  const redirect = () => new ContentError(302, 'moved', 'Found', 'Secret detail 42.');

  it('from a hook: a 500 without detail, logged naming the hook, given to afterError once; nothing is written', async () => {
    const thrown = success();
    plug.beforeChange = () => {
      throw thrown;
    };
    const stored = await items().countDocuments();
    const res = await request(t.app).post('/api/items').set(...editor).send({ title: 'odd' });
    expect(res.status).toBe(500);
    expect(res.headers['content-type']).toMatch(PROBLEM);
    expect(res.body).toEqual(INTERNAL);
    expect(res.text).not.toContain('Secret');
    expect(await items().countDocuments()).toBe(stored);
    expect(logText()).toContain('"items" hooks.beforeChange[0] (pluggedBeforeChange) hook failed');
    expect(logText()).toContain('status 200');
    expect(afterErrors).toHaveLength(1);
    expect(afterErrors[0]).toMatchObject({ operation: 'create', collection: 'items' });
    expect((afterErrors[0].error as Error).cause).toBe(thrown);
  });

  it('from an access rule, over REST: a 500 without detail, logged naming the status, given to afterError once', async () => {
    const thrown = redirect();
    plug.readRule = () => {
      throw thrown;
    };
    const res = await request(t.app).get('/api/items').set(...editor);
    expect(res.status).toBe(500);
    expect(res.body).toEqual(INTERNAL);
    expect(logText()).toContain('status 302');
    expect(afterErrors.map((a) => a.operation)).toEqual(['read']);
    expect(afterErrors[0].error).toBe(thrown);
  });

  it('through the local API: the caller gets the error, and afterError is given it once', async () => {
    const thrown = success();
    plug.createRule = () => {
      throw thrown;
    };
    await expect(t.api.local.create('items', { title: 'x' }, { user: { id: '0000000000000000000000e1' } })).rejects.toBe(thrown);
    expect(afterErrors).toHaveLength(1);
    expect(afterErrors[0].error).toBe(thrown);
  });

  it("from a hook under a custom endpoint's req.context: a 500, given to afterError once", async () => {
    plug.beforeValidate = () => {
      throw redirect();
    };
    const res = await request(t.app).post('/api/items-through-context').set(...editor).send({});
    expect(res.status).toBe(500);
    expect(res.body).toEqual(INTERNAL);
    expect(logText()).toContain('"items" hooks.beforeValidate[0] (pluggedBeforeValidate) hook failed');
    expect(afterErrors).toHaveLength(1);
  });

  it('thrown by a custom endpoint: a 500 without detail, logged naming the status', async () => {
    const res = await request(t.app).post('/api/odd-answer').set(...editor).send({});
    expect(res.status).toBe(500);
    expect(res.body).toEqual(INTERNAL);
    expect(logText()).toContain('status 302');
  });

  it('afterChange throwing it: the write stands, the failure is logged and given to afterError once', async () => {
    plug.afterChange = () => {
      throw success();
    };
    const created = await request(t.app).post('/api/items').set(...editor).send({ title: 'stands anyway' });
    expect(created.status).toBe(201);
    expect(afterErrors.map((a) => a.operation)).toEqual(['create']);
    expect(logText()).toContain('hooks.afterChange[0] (pluggedAfterChange) hook failed');
  });
});

describe('afterChange and afterDelete cannot undo the write', () => {
  it.each([
    ['an Error', () => new Error('audit service down')],
    ['a ContentError', () => new ForbiddenError('too late to refuse')],
  ])('afterChange throwing %s: the client gets 201 or 200, the record is stored, the failure logged and given to afterError', async (_name, make) => {
    plug.afterChange = () => {
      throw make();
    };
    const created = await request(t.app).post('/api/items').set(...editor).send({ title: 'stands' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ title: 'stands' });
    expect(await row(created.body.id)).toMatchObject({ title: 'stands' });
    const updated = await request(t.app).patch(`/api/items/${created.body.id}`).set(...editor).send({ count: 3 });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ count: 3 });
    expect(await row(created.body.id)).toMatchObject({ count: 3 });
    expect(afterErrors.map((a) => a.operation)).toEqual(['create', 'update']);
    expect(logText()).toContain('hooks.afterChange[0] (pluggedAfterChange) hook failed');
    expect(logged).toHaveLength(2);
    expect((afterErrors[0].error as Error).message).toContain('"items" hooks.afterChange[0] (pluggedAfterChange) hook failed');
    // Through the local API as well: the record comes back, the failure goes to the log.
    expect(await t.api.local.create('items', { title: 'local stands' })).toMatchObject({ title: 'local stands' });
    expect(afterErrors).toHaveLength(3);
  });

  it('afterDelete throwing: the delete stands and answers 200, the failure is logged and given to afterError', async () => {
    const { id } = await t.api.local.create('items', { title: 'goes' });
    plug.afterDelete = () => {
      throw new Error('cleanup failed');
    };
    const soft = await request(t.app).delete(`/api/items/${id}`).set(...editor);
    expect(soft.status).toBe(200);
    expect(soft.body).toEqual({ deleted: true });
    expect((await row(id))?.deletedAt).toBeInstanceOf(Date);
    const permanent = await request(t.app).delete(`/api/items/${id}?permanent=true`).set(...editor);
    expect(permanent.status).toBe(200);
    expect(await row(id)).toBeNull();
    expect(afterErrors.map((a) => a.operation)).toEqual(['delete', 'delete']);
    expect(logText()).toContain('hooks.afterDelete[0] (pluggedAfterDelete) hook failed: cleanup failed');
  });
});

describe('what a hook produces', () => {
  it.each([
    ['a string', 'not a record', 'a string'],
    ['an array', [{ title: 'x' }], 'an array'],
    ['null', null, 'null'],
    ['a number', 42, 'a number'],
  ])('beforeChange returning %s is a 500 naming the hook, and nothing is written', async (_name, returned, described) => {
    plug.beforeChange = () => returned;
    const stored = await items().countDocuments();
    const res = await request(t.app).post('/api/items').set(...editor).send({ title: 'x' });
    expect(res.status).toBe(500);
    expect(res.body.detail).toBe(GENERIC);
    expect(await items().countDocuments()).toBe(stored);
    expect(logText()).toContain(`"items" hooks.beforeChange[0] (pluggedBeforeChange) hook returned ${described}, not an object; nothing was written`);
    expect(afterErrors).toHaveLength(1);
  });

  it('beforeValidate returning something that is not an object is a 500 too', async () => {
    plug.beforeValidate = () => 'oops';
    const res = await request(t.app).post('/api/items').set(...editor).send({ title: 'x' });
    expect(res.status).toBe(500);
    expect(logText()).toContain('hooks.beforeValidate[0] (pluggedBeforeValidate) hook returned a string');
  });

  it('a field beforeChange returning a value of the wrong type is a 500 naming fields.<name>.hooks.beforeChange[0]', async () => {
    plug.title = () => 42;
    const stored = await items().countDocuments();
    const res = await request(t.app).post('/api/items').set(...editor).send({ title: 'x' });
    expect(res.status).toBe(500);
    expect(res.body.detail).toBe(GENERIC);
    expect(await items().countDocuments()).toBe(stored);
    expect(logText()).toContain('"items" fields.title.hooks.beforeChange[0] (pluggedTitle) hook produced a record that cannot be stored (title: title must be a string); nothing was written');
    await expect(t.api.local.create('items', { title: 'x' })).rejects.toThrow(/"items" fields\.title\.hooks\.beforeChange\[0\]/);
    expect(await items().countDocuments()).toBe(stored);
  });

  it.each([
    ['a value of the wrong type', (data: Record<string, unknown>) => ({ ...data, count: 'many' }), 'count'],
    ['a field that does not exist', (data: Record<string, unknown>) => ({ ...data, nope: 1 }), 'nope'],
    ['no required title', ({ title: _title, ...data }: Record<string, unknown>) => data, 'title'],
    ['a required field cleared', (data: Record<string, unknown>) => ({ ...data, title: null }), 'title'],
  ])('beforeChange producing %s is a 500 naming the hook and the field, and nothing is written', async (_name, change, field) => {
    plug.beforeChange = ({ data }) => change(data);
    const stored = await items().countDocuments();
    const res = await request(t.app).post('/api/items').set(...editor).send({ title: 'x' });
    expect(res.status).toBe(500);
    expect(await items().countDocuments()).toBe(stored);
    expect(logText()).toMatch(new RegExp(`hooks\\.beforeChange\\[0\\] \\(pluggedBeforeChange\\) hook produced a record that cannot be stored \\(${field}: `));
  });

  it('beforeChange changing the body in place is checked the same way', async () => {
    const { id } = await t.api.local.create('items', { title: 'in place', count: 1 });
    plug.beforeChange = ({ data }) => {
      data.count = 'two';
    };
    const res = await request(t.app).patch(`/api/items/${id}`).set(...editor).send({ title: 'changed' });
    expect(res.status).toBe(500);
    expect(await row(id)).toMatchObject({ title: 'in place', count: 1 });
    expect(logText()).toContain('hook produced a record that cannot be stored (count: ');
  });

  it('a bad output for item 2 of a batch is a 500, and nothing of the batch is written', async () => {
    plug.beforeChange = ({ data }) => (data.title === 'second' ? { ...data, count: 'NaN' } : undefined);
    const stored = await items().countDocuments();
    const res = await request(t.app).post('/api/items').set(...editor).send({ data: [{ title: 'first' }, { title: 'second' }, { title: 'third' }] });
    expect(res.status).toBe(500);
    expect(await items().countDocuments()).toBe(stored);
    expect(logText()).toContain('hooks.beforeChange[0] (pluggedBeforeChange) hook produced a record that cannot be stored (count: ');
  });

  it('afterChange may replace the record the client receives; hidden fields still stay out', async () => {
    plug.afterChange = ({ doc }) => ({ ...doc, receipt: `stored ${String(doc.title)}`, secret: 'leaked?' });
    const res = await request(t.app).post('/api/items').set(...editor).send({ title: 'replaced' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ title: 'replaced', receipt: 'stored replaced' });
    expect(res.body).not.toHaveProperty('secret');
    // A replacement that is not an object is the hook's failure after the write: logged, the stored record answers.
    plug.afterChange = () => 'nope';
    const second = await request(t.app).post('/api/items').set(...editor).send({ title: 'kept answer' });
    expect(second.status).toBe(201);
    expect(second.body).toMatchObject({ title: 'kept answer' });
    expect(logText()).toContain('hooks.afterChange[0] (pluggedAfterChange) hook returned a string');
  });

  it('hooks may write hidden fields the client may not', async () => {
    plug.beforeChange = ({ data }) => ({ ...data, secret: 'from a hook' });
    const res = await request(t.app).post('/api/items').set(...editor).send({ title: 'with secret' });
    expect(res.status).toBe(201);
    expect(res.body).not.toHaveProperty('secret');
    expect(await row(res.body.id)).toMatchObject({ secret: 'from a hook' });
  });
});

describe('read hooks and hidden fields', () => {
  let id: string;
  beforeAll(async () => {
    plug = {};
    id = (await t.api.local.create('items', { title: 'shown', secret: 'classified' })).id;
  });

  it('beforeRead sees hidden fields; they are removed after afterRead whatever it returns; computed fields stay', async () => {
    const seen: Record<string, unknown>[] = [];
    plug.beforeRead = ({ doc }) => {
      seen.push({ ...doc });
    };
    plug.afterRead = ({ doc }) => ({ ...doc, secret: 'put back by afterRead', computed: `${String(doc.title)}!` });
    const answers = [
      (await request(t.app).get(`/api/items/${id}`).set(...editor)).body,
      (await request(t.app).get(`/api/items?where[id][eq]=${id}`).set(...editor)).body.data[0],
      (await request(t.app).patch(`/api/items/${id}`).set(...editor).send({ count: 9 })).body,
      await t.api.local.findById('items', id),
      (await t.api.local.find('items', { where: { id: { eq: id } } })).docs[0],
    ];
    for (const answer of answers) {
      expect(answer).toMatchObject({ id, title: 'shown', computed: 'shown!' });
      expect(answer).not.toHaveProperty('secret');
    }
    expect(seen.length).toBe(answers.length);
    for (const doc of seen) expect(doc).toMatchObject({ id, secret: 'classified' });
  });

  it('afterRead replacing the record with something that is not an object is a 500 naming the hook', async () => {
    plug.afterRead = () => 'text';
    const res = await request(t.app).get(`/api/items/${id}`).set(...editor);
    expect(res.status).toBe(500);
    expect(res.body.detail).toBe(GENERIC);
    expect(logText()).toContain('hooks.afterRead[0] (pluggedAfterRead) hook returned a string');
  });
});

describe('a hook that never settles', () => {
  let d: TestApp;
  /** Each hook waits for this before it returns; a test lets them go once the deadline has answered. */
  let release: () => void = () => undefined;
  let gate: Promise<void> = Promise.resolve();
  const hold = () => {
    gate = new Promise((resolve) => (release = resolve));
  };
  const stalled = () => gate;
  const dItems = () => d.connection.db!.collection('items');

  beforeAll(async () => {
    d = await createTestApp(hooksConfig(), { requestTimeoutMS: 300 });
  });
  afterAll(async () => {
    release();
    await d.close();
  });
  beforeEach(() => hold());
  afterEach(() => release());

  /** Sends a request that a hook holds past the deadline, then lets the hook finish. */
  async function cutByDeadline(send: () => request.Test): Promise<request.Response> {
    const res = await send();
    release();
    // Nothing must follow: time for the rest of the operation to run (and, were it not stopped, to write).
    await quietFor(300);
    expect(d.hostErrors).toEqual([]);
    return res;
  }

  it.each([
    ['beforeValidate', (p: Plugs) => (p.beforeValidate = stalled)],
    ['beforeChange', (p: Plugs) => (p.beforeChange = stalled)],
    ['a field beforeChange', (p: Plugs) => (p.title = stalled)],
  ])('in %s is cut by the request deadline with a 503, and the create writes nothing when the hook settles later', async (_name, set) => {
    set(plug);
    const res = await cutByDeadline(() => request(d.app).post('/api/items').set(...editor).send({ title: 'late' }));
    expect(res.status).toBe(503);
    expect(res.headers['content-type']).toMatch(PROBLEM);
    expect(await dItems().countDocuments({ title: 'late' })).toBe(0);
  });

  it('in beforeChange of an update, a batch and a global: nothing is written', async () => {
    const { id } = await d.api.local.create('items', { title: 'steady', count: 1 });
    plug.beforeChange = stalled;
    expect((await cutByDeadline(() => request(d.app).patch(`/api/items/${id}`).set(...editor).send({ count: 2 }))).status).toBe(503);
    expect(await dItems().findOne({ _id: new Types.ObjectId(id) })).toMatchObject({ count: 1 });
    hold();
    expect((await cutByDeadline(() => request(d.app).post('/api/items').set(...editor).send({ data: [{ title: 'late 1' }, { title: 'late 2' }] }))).status).toBe(503);
    expect(await dItems().countDocuments({ title: /^late/ })).toBe(0);
    hold();
    plug.settings = stalled;
    expect((await cutByDeadline(() => request(d.app).patch('/api/globals/settings').set(...editor).send({ siteName: 'late' }))).status).toBe(503);
    expect(await d.connection.db!.collection<{ _id: string }>('globals').countDocuments({ _id: 'settings' })).toBe(0);
  });

  it('in beforeDelete: the record is not deleted when the hook settles later', async () => {
    const { id } = await d.api.local.create('items', { title: 'survivor' });
    plug.beforeDelete = stalled;
    expect((await cutByDeadline(() => request(d.app).delete(`/api/items/${id}?permanent=true`).set(...editor))).status).toBe(503);
    expect(await dItems().findOne({ _id: new Types.ObjectId(id) })).toMatchObject({ title: 'survivor', deletedAt: null });
  });

  it('a write a hook makes through args.api after the deadline is not made either', async () => {
    plug.beforeChange = async ({ api, context }) => {
      // The nested create runs this hook too: only the outer one writes through api.
      if (context.nested) return;
      context.nested = true;
      await stalled();
      await api.create('items', { title: 'late side effect' }, { overrideAccess: true });
    };
    expect((await cutByDeadline(() => request(d.app).post('/api/items').set(...editor).send({ title: 'late main' }))).status).toBe(503);
    expect(await dItems().countDocuments({ title: /^late/ })).toBe(0);
  });
});
