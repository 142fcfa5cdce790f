// The read steps of a collection with afterRead hooks and no beforeRead, where records are serialized in the
// caller's view and hooks answering at once run without promises: `fields`, hidden and unreadable fields put
// back by afterRead, the same object returned, a switch from synchronous to asynchronous hooks mid-list, field
// afterRead before the collection's, failures thrown at once or rejected later, over HTTP and locally, and
// records that share a populated record or a json value with others each get copies of their own.
import request from 'supertest';
import type { FieldHookArgs, ReadHookArgs } from '../../lib/config/hooks';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';

const editor = asUser({ id: '0000000000000000000000e1', role: 'editor' });
const GENERIC = 'An unexpected error occurred.';

/** What a test plugs into the notes' afterRead list; by default each hook keeps the record. */
let first: (args: ReadHookArgs) => unknown = () => undefined;
let second: (args: ReadHookArgs) => unknown = () => undefined;
const order: string[] = [];
const logged: unknown[][] = [];

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({
    logger: { error: (...args: unknown[]) => logged.push(args), warn: () => undefined, info: () => undefined },
    collections: [
      { slug: 'people', access: { read: () => true }, fields: { name: { type: 'text' } } },
      {
        slug: 'notes',
        access: { read: () => true, create: () => true, update: () => true },
        fields: {
          title: { type: 'text', required: true },
          body: { type: 'text' },
          secret: { type: 'text', hidden: true },
          // Editors only: anonymous callers may not read it.
          review: { type: 'text', access: { read: ({ user }) => user?.role === 'editor' } },
          owner: { type: 'relationship', relationTo: 'people' },
          meta: { type: 'json' },
          // A field hook runs before the collection's afterRead, on the record in the caller's view.
          shout: {
            type: 'text',
            hooks: {
              afterRead: [
                function upper({ value }: FieldHookArgs) {
                  order.push('field');
                  return typeof value === 'string' ? value.toUpperCase() : value;
                },
              ],
            },
          },
        },
        hooks: {
          afterRead: [
            function firstAfterRead(args: ReadHookArgs) {
              order.push('first');
              return first(args);
            },
            function secondAfterRead(args: ReadHookArgs) {
              order.push('second');
              return second(args);
            },
          ],
        },
      },
    ],
  });
  const owner = await t.api.local.create('people', { name: 'Ada' });
  await t.api.local.create('notes', { title: 'one', body: 'b1', secret: 's1', review: 'r1', shout: 'hey', owner: owner.id, meta: { tags: ['a'] } });
  await t.api.local.create('notes', { title: 'two', body: 'b2', secret: 's2', review: 'r2', shout: 'ho', owner: owner.id, meta: { tags: ['a'] } });
});
afterAll(() => t.close());
beforeEach(() => {
  first = () => undefined;
  second = () => undefined;
  order.length = 0;
  logged.length = 0;
});
afterEach(() => expect(t.hostErrors).toEqual([]));

const list = (query = '', ...user: [string, string][]) => {
  const req = request(t.app).get(`/api/notes?sort=title${query}`);
  for (const header of user) req.set(...header);
  return req;
};

describe('afterRead without beforeRead', () => {
  it('runs field afterRead, then the collection\'s hooks in order, on every record', async () => {
    first = ({ doc }) => ({ ...doc, words: String(doc.body).length });
    second = async ({ doc }) => ({ ...doc, seenWords: doc.words });
    const res = await list();
    expect(res.status).toBe(200);
    expect(res.body.data.map((r: Record<string, unknown>) => [r.title, r.shout, r.words, r.seenWords])).toEqual([
      ['one', 'HEY', 2, 2],
      ['two', 'HO', 2, 2],
    ]);
    expect(order).toEqual(['field', 'first', 'second', 'field', 'first', 'second']);
  });

  it('switches from hooks answering at once to one that waits, and back, keeping each record\'s own result', async () => {
    let n = 0;
    first = ({ doc }) => (n++ % 2 === 0 ? new Promise((resolve) => setTimeout(() => resolve({ ...doc, by: 'async' }), 5)) : { ...doc, by: 'sync' });
    second = ({ doc }) => ({ ...doc, title2: `${String(doc.title)}!` });
    const res = await list();
    expect(res.body.data.map((r: Record<string, unknown>) => [r.title, r.by, r.title2])).toEqual([
      ['one', 'async', 'one!'],
      ['two', 'sync', 'two!'],
    ]);
  });

  it('applies `fields` before the hooks and keeps what they compute', async () => {
    const seen: Record<string, unknown>[] = [];
    first = ({ doc }) => {
      seen.push({ ...doc });
      return { ...doc, computed: true };
    };
    const res = await list('&fields=title');
    expect(res.body.data[0]).toEqual({ id: expect.any(String), title: 'one', computed: true });
    expect(seen[0]).toEqual({ id: expect.any(String), title: 'one' });
    const [one] = (await t.api.local.find('notes', { sort: 'title', fields: 'title' })).docs;
    expect(one).toEqual({ id: expect.any(String), title: 'one', computed: true });
  });

  it('removes hidden and unreadable fields put back by afterRead, whatever it returns', async () => {
    first = ({ doc }) => ({ ...doc, secret: 'leaked', review: 'leaked' });
    const anonymous = await list();
    for (const record of anonymous.body.data) {
      expect(record).not.toHaveProperty('secret');
      expect(record).not.toHaveProperty('review');
    }
    const asEditor = await list('', editor);
    expect(asEditor.body.data[0]).toMatchObject({ title: 'one', review: 'leaked' });
    expect(asEditor.body.data[0]).not.toHaveProperty('secret');
    // Changed in place and returned as it is: the same rule.
    first = ({ doc }) => {
      doc.secret = 'in place';
      return doc;
    };
    const get = await request(t.app).get(`/api/notes/${anonymous.body.data[0].id}`);
    expect(get.status).toBe(200);
    expect(get.body).not.toHaveProperty('secret');
    expect(get.body).not.toHaveProperty('review');
  });

  it.each([
    ['throws at once', () => {
      throw new Error('sync boom');
    }, 'sync boom'],
    ['rejects later', async () => {
      throw new Error('async boom');
    }, 'async boom'],
    ['throws a non-Error value', () => {
      throw 'text';
    }, 'non-Error value'],
  ])('a hook that %s is a 500 without detail, logged naming the hook', async (_name, hook, message) => {
    second = hook;
    const res = await list();
    expect(res.status).toBe(500);
    expect(res.body.detail).toBe(GENERIC);
    expect(JSON.stringify(res.body)).not.toContain('boom');
    const text = logged.flat().map((entry) => (entry instanceof Error ? entry.message : String(entry))).join('\n');
    expect(text).toContain('"notes" hooks.afterRead[1] (secondAfterRead) hook failed');
    expect(text).toContain(message);
    await expect(t.api.local.find('notes', {})).rejects.toThrow(/hooks\.afterRead\[1\] \(secondAfterRead\)/);
  });

  it('gives each record its own copy of a populated record and of json values: a change in place stays in its record', async () => {
    first = ({ doc }) => {
      if (doc.title === 'one') {
        (doc.owner as Record<string, unknown>).name = 'changed in place';
        ((doc.meta as { tags: string[] }).tags).push('changed');
      }
    };
    const res = await list('&depth=1');
    expect(res.status).toBe(200);
    const [one, two] = res.body.data;
    expect(one.owner.name).toBe('changed in place');
    expect(one.meta.tags).toEqual(['a', 'changed']);
    expect(two.owner.name).toBe('Ada');
    expect(two.meta.tags).toEqual(['a']);
    const stored = await t.connection.db!.collection('notes').findOne({ title: 'one' });
    expect(stored?.meta).toEqual({ tags: ['a'] });
  });

  it('a hook answering at once with something that is not an object is a 500 naming the hook', async () => {
    first = () => 42;
    const res = await list();
    expect(res.status).toBe(500);
    expect(res.body.detail).toBe(GENERIC);
    await expect(t.api.local.find('notes', {})).rejects.toThrow(/hooks\.afterRead\[0\] \(firstAfterRead\) hook returned a number/);
  });
});
