// What a page envelope's total and GET /<slug>/count cost, proved by the commands the driver sends (command
// monitoring on the router's own connection): estimatedDocumentCount only for an empty final filter,
// countDocuments otherwise, and on collections with `cache` a repeated filter's total served from memory
// until a write (through the router, through the driver, a delete) can have changed it.
import mongoose, { type Connection } from 'mongoose';
import request from 'supertest';
import type { AccessArgs } from '../../lib';
import { asUser, createTestApp, type TestApp } from '../helpers/create-test-app';
import { capabilities, closeTestConnection, itIf, testDbUri, uniqueDbName } from '../helpers/test-db';
import { eventually } from '../helpers/eventually';

type CountKind = 'estimated' | 'exact';
interface CountCommand {
  kind: CountKind;
  collection: string;
}

/** Every count the router's connection sent: `count` (estimatedDocumentCount) or a counting aggregate (countDocuments). */
const counts: CountCommand[] = [];

function watchCounts(connection: Connection): void {
  connection.getClient().on('commandStarted', (event) => {
    const command = event.command as Record<string, unknown>;
    if (event.commandName === 'count') {
      // estimatedDocumentCount sends no query: a `count` with one would be something else.
      counts.push({ kind: command.query === undefined ? 'estimated' : 'exact', collection: String(command.count) });
    } else if (event.commandName === 'aggregate' && Array.isArray(command.pipeline)) {
      const last = command.pipeline[command.pipeline.length - 1] as Record<string, unknown> | undefined;
      if (last && '$group' in last) counts.push({ kind: 'exact', collection: String(command.aggregate) });
    }
  });
}

/** The counts `run` caused, by kind. */
async function countsDuring<T>(run: () => Promise<T>): Promise<{ result: T; estimated: string[]; exact: string[] }> {
  const from = counts.length;
  const result = await run();
  const during = counts.slice(from);
  return {
    result,
    estimated: during.filter((c) => c.kind === 'estimated').map((c) => c.collection),
    exact: during.filter((c) => c.kind === 'exact').map((c) => c.collection),
  };
}

type User = { id: string; role?: string } | null;
/** Editors read every post; any other user only their own: two users, two read rules' answers. */
function readOwn(args: AccessArgs) {
  const user = args.user as User;
  if (user?.role === 'editor') return true;
  return user ? { owner: { eq: user.id } } : false;
}

const everyone = { read: () => true, create: () => true, update: () => true, delete: () => true };
const EDITOR = asUser({ id: 'e1', role: 'editor' });
const U1 = asUser({ id: 'u1' });
const U2 = asUser({ id: 'u2' });

let connection: Connection;
let t: TestApp;
const get = (path: string, user?: [string, string]) => {
  const req = request(t.app).get(`/api${path}`);
  return user ? req.set(...user) : req;
};

beforeAll(async () => {
  connection = await mongoose
    .createConnection(testDbUri(), { dbName: uniqueDbName(), serverSelectionTimeoutMS: 10000, monitorCommands: true })
    .asPromise();
  watchCounts(connection);
  // Seeded before the router (and its change feed) starts, so no stream echo of the seed can land mid-test.
  const now = new Date();
  const row = (fields: Record<string, unknown>) => ({ ...fields, createdAt: now, updatedAt: now });
  const db = connection.db!;
  await db.collection('plain').insertMany([1, 2, 3, 4, 5].map((n) => row({ n })));
  await db.collection('soft').insertMany([row({ n: 1, deletedAt: null }), row({ n: 2, deletedAt: null }), row({ n: 3, deletedAt: now })]);
  await db.collection('owned').insertMany([row({ owner: 'u1' }), row({ owner: 'u1' }), row({ owner: 'u2' })]);
  await db.collection('posts').insertMany([
    ...[1, 2, 3, 4, 5].map((n) => row({ title: `p${n}`, status: 'published', owner: 'u1' })),
    ...[1, 2, 3].map((n) => row({ title: `q${n}`, status: 'published', owner: 'u2' })),
    row({ title: 'd1', status: 'draft', owner: 'u1' }),
  ]);
  await db.collection('tiny').insertMany([1, 2, 3, 4].map((n) => row({ n })));
  t = await createTestApp(
    {
      collections: [
        { slug: 'plain', fields: { n: { type: 'number' } }, access: everyone },
        { slug: 'soft', softDelete: true, fields: { n: { type: 'number' } }, access: everyone },
        { slug: 'owned', fields: { owner: { type: 'text' } }, access: { ...everyone, read: readOwn } },
        {
          slug: 'posts',
          cache: { ttl: 600 },
          fields: {
            title: { type: 'text', required: true },
            status: { type: 'select', options: ['draft', 'published'], default: 'draft' },
            owner: { type: 'text' },
          },
          access: { ...everyone, read: readOwn },
        },
        { slug: 'tiny', cache: { ttl: 600, max: 2 }, fields: { n: { type: 'number' } }, access: everyone },
      ],
    },
    { connection },
  );
});

afterAll(async () => {
  await t?.api.close();
  await closeTestConnection(connection);
});

describe('estimatedDocumentCount for an empty final filter', () => {
  it('answers an unfiltered list with the estimate, and the right total in every page envelope', async () => {
    const { result, estimated, exact } = await countsDuring(async () => [
      await get('/plain?perPage=2'),
      await get('/plain?limit=2&page=3'),
    ]);
    const [data, docs] = result;
    expect(data.status).toBe(200);
    expect(data.body.meta).toMatchObject({ total: 5, totalPages: 3 });
    expect(docs.body).toMatchObject({ totalDocs: 5, totalPages: 3, page: 3, hasNextPage: false, hasPrevPage: true });
    expect(docs.body.docs).toHaveLength(1);
    expect(estimated).toEqual(['plain', 'plain']);
    expect(exact).toEqual([]);
  });

  it('follows the collection as it changes', async () => {
    const created = await request(t.app).post('/api/plain').send({ n: 6 });
    expect(created.status).toBe(201);
    expect((await get('/plain')).body.meta.total).toBe(6);
    expect((await request(t.app).delete(`/api/plain/${created.body.id}`)).status).toBe(200);
    expect((await get('/plain')).body.meta.total).toBe(5);
    expect(await connection.db!.collection('plain').countDocuments()).toBe(5);
  });

  it('is not used once the client filters', async () => {
    const { result, estimated, exact } = await countsDuring(() => get('/plain?where[n][gte]=2&perPage=2'));
    expect(result.body.meta.total).toBe(4);
    expect(estimated).toEqual([]);
    expect(exact).toEqual(['plain']);
  });

  it('is not used for the documented way to ask for an exact total, where[id][exists]=true', async () => {
    const { result, estimated, exact } = await countsDuring(() => get('/plain?where[id][exists]=true'));
    expect(result.status).toBe(200);
    expect(result.body.meta.total).toBe(5);
    expect(estimated).toEqual([]);
    expect(exact).toEqual(['plain']);
  });

  it('is never used on a soft-delete collection: its scope is a filter', async () => {
    const { result, estimated, exact } = await countsDuring(() => get('/soft'));
    expect(result.body.meta.total).toBe(2);
    expect(estimated).toEqual([]);
    expect(exact).toEqual(['soft']);
  });

  it('is used only for the caller whose read rule adds no condition', async () => {
    const editor = await countsDuring(() => get('/owned', EDITOR));
    expect(editor.result.body.meta.total).toBe(3);
    expect(editor.estimated).toEqual(['owned']);
    const user = await countsDuring(() => get('/owned', U1));
    expect(user.result.body.meta.total).toBe(2);
    expect(user.estimated).toEqual([]);
    expect(user.exact).toEqual(['owned']);
  });

  it('counts nothing with count=false, and nothing in cursor mode', async () => {
    const { result, estimated, exact } = await countsDuring(async () => [await get('/plain?count=false'), await get('/plain?cursor=&perPage=2')]);
    expect(result[0].body.meta).toEqual({ page: 1, perPage: 10, hasNextPage: false, hasPrevPage: false });
    expect(result[1].body.meta).not.toHaveProperty('total');
    expect([...estimated, ...exact]).toEqual([]);
  });

  it('leaves totals of a collection without `cache` uncached: a repeated filter counts again', async () => {
    const { exact } = await countsDuring(async () => [await get('/plain?where[n][gte]=2&page=1&perPage=2'), await get('/plain?where[n][gte]=2&page=2&perPage=2')]);
    expect(exact).toEqual(['plain', 'plain']);
  });
});

describe('cached totals (collections with `cache`)', () => {
  let page = 1;
  /** A page number no earlier request used: its answer is a response-cache MISS, while its total's key (the filter) is not new. */
  const fresh = () => (page += 1);

  /**
   * The filter's total is held: a request of a page never asked before (a response-cache MISS) answers
   * `total` without counting. Retried, each time priming the total first, because the change feed's echo of
   * a write made just before may land in between and (rightly) drop it.
   */
  const cachedTotal = (filter: string, user: [string, string], total: number) =>
    eventually(async () => {
      expect((await get(`/posts?${filter}&perPage=2&page=${fresh()}`, user)).body.meta.total).toBe(total);
      const { result, exact } = await countsDuring(() => get(`/posts?${filter}&perPage=2&page=${fresh()}`, user));
      expect(result.status).toBe(200);
      expect(result.headers['x-cache']).toBe('MISS');
      expect(result.body.meta.total).toBe(total);
      expect(exact).toEqual([]);
    });

  /**
   * The very next request of the filter counts (nothing cached holds its total) and answers `total`. Not
   * retried: this router's own writes drop totals before their response is sent, whatever the feed does.
   */
  const countedAfresh = async (filter: string, user: [string, string], total: number) => {
    const { result, exact } = await countsDuring(() => get(`/posts?${filter}&perPage=2&page=${fresh()}`, user));
    expect(result.body.meta.total).toBe(total);
    expect(exact).toEqual(['posts']);
  };

  it('counts a filter once, then serves its total on page 2, in another envelope and spelling too', async () => {
    await countedAfresh('where[status]=published', EDITOR, 8);
    await cachedTotal('where[status]=published', EDITOR, 8);
    // The same filter in Form C, answered in the Form A envelope: the same total, not counted again.
    const { result, exact } = await countsDuring(() => get(`/posts?filter=status:published&limit=2&page=${fresh()}`, EDITOR));
    expect(result.headers['x-cache']).toBe('MISS');
    expect(result.body.totalDocs).toBe(8);
    expect(exact).toEqual([]);
  });

  it('never shares a total between users whose read rules differ', async () => {
    await cachedTotal('where[status]=published', U1, 5);
    // U2 asks the same question right after: the rule gives another filter, so it is counted for U2.
    await countedAfresh('where[status]=published', U2, 3);
    await cachedTotal('where[status]=published', U2, 3);
    await cachedTotal('where[status]=published', U1, 5);
  });

  it('drops the totals on a write through the router', async () => {
    await cachedTotal('where[status]=published', EDITOR, 8);
    const created = await request(t.app).post('/api/posts').send({ title: 'p6', status: 'published', owner: 'u1' });
    expect(created.status).toBe(201);
    await countedAfresh('where[status]=published', EDITOR, 9);
  });

  it('drops the totals on an update through the router', async () => {
    await cachedTotal('where[status]=draft', EDITOR, 1);
    const draft = (await get('/posts?where[status]=draft', EDITOR)).body.data[0];
    // Written by an editor: a write finds only records its caller may read.
    expect((await request(t.app).patch(`/api/posts/${draft.id}`).set(...EDITOR).send({ status: 'published' })).status).toBe(200);
    await countedAfresh('where[status]=draft', EDITOR, 0);
    expect((await request(t.app).patch(`/api/posts/${draft.id}`).set(...EDITOR).send({ status: 'draft' })).status).toBe(200);
  });

  it('drops the totals on a delete through the router', async () => {
    const created = await request(t.app).post('/api/posts').send({ title: 'short', status: 'published', owner: 'u1' });
    expect(created.status).toBe(201);
    await cachedTotal('where[status]=published', EDITOR, 10);
    expect((await request(t.app).delete(`/api/posts/${created.body.id}`).set(...EDITOR)).status).toBe(200);
    await countedAfresh('where[status]=published', EDITOR, 9);
  });

  itIf(capabilities().changeStreams, 'the server has no change streams, so writes made elsewhere reach no cache')(
    'drops the totals on a write made straight through the driver, once the change feed reports it',
    async () => {
      await cachedTotal('where[status]=published', EDITOR, 9);
      const now = new Date();
      await connection.db!.collection('posts').insertOne({ title: 'from the driver', status: 'published', owner: 'u2', createdAt: now, updatedAt: now });
      // The stream event arrives soon, not at once: until then the cached total may still be served.
      await eventually(async () => expect((await get(`/posts?where[status]=published&perPage=2&page=${fresh()}`, EDITOR)).body.meta.total).toBe(10));
      await cachedTotal('where[status]=published', EDITOR, 10);
    },
  );

  it('keeps at most `max` totals per collection, dropping the oldest first', async () => {
    // tiny has max 2 (for its answers, and apart from them for its totals). Three filters A, B, C, each
    // counted once: C's total evicts A's.
    const [a, b, c] = ['where[n][gte]=1', 'where[n][gte]=2', 'where[n][gte]=3'];
    const tiny = (filter: string) => countsDuring(() => get(`/tiny?${filter}&perPage=1&page=${fresh()}`));
    await eventually(async () => {
      const first = await countsDuring(async () => {
        for (const filter of [a, b, c]) expect((await tiny(filter)).result.headers['x-cache']).toBe('MISS');
      });
      expect(first.exact).toEqual(['tiny', 'tiny', 'tiny']);
      const heldC = await tiny(c);
      expect(heldC.result.body.meta.total).toBe(2);
      expect(heldC.exact).toEqual([]);
      const droppedA = await tiny(a);
      expect(droppedA.result.body.meta.total).toBe(4);
      expect(droppedA.exact).toEqual(['tiny']);
    });
  });

  it('does not serve the local API from the totals cache: it counts every time', async () => {
    const { result, exact } = await countsDuring(async () => [
      await t.api.local.find('posts', { where: { status: { eq: 'draft' } }, perPage: 1 }),
      await t.api.local.find('posts', { where: { status: { eq: 'draft' } }, perPage: 1, page: 2 }),
    ]);
    expect(result.map((r) => r.total)).toEqual([1, 1]);
    expect(exact).toEqual(['posts', 'posts']);
  });
});

describe('GET /<slug>/count', () => {
  it('answers an unfiltered count with the estimate, and counts a filter exactly, every time without `cache`', async () => {
    const unfiltered = await countsDuring(() => get('/plain/count'));
    expect(unfiltered.result.body).toEqual({ total: 5 });
    expect(unfiltered.estimated).toEqual(['plain']);
    expect(unfiltered.exact).toEqual([]);
    const filtered = await countsDuring(async () => [await get('/plain/count?where[n][gte]=2'), await get('/plain/count?where[n][gte]=2')]);
    expect(filtered.result.map((res) => res.body)).toEqual([{ total: 4 }, { total: 4 }]);
    expect(filtered.exact).toEqual(['plain', 'plain']);
    // A soft-delete collection always filters: counted, never estimated.
    const soft = await countsDuring(() => get('/soft/count'));
    expect(soft.result.body).toEqual({ total: 2 });
    expect(soft.exact).toEqual(['soft']);
  });

  it('shares the totals cache with the list on a collection with `cache`: a filter the list counted is not counted again, until a write', async () => {
    const filter = 'where[title][like]=q%25';
    let page = 100;
    await eventually(async () => {
      expect((await get(`/posts?${filter}&perPage=2&page=${(page += 1)}`, EDITOR)).body.meta.total).toBe(3);
      const { result, exact } = await countsDuring(() => get(`/posts/count?${filter}`, EDITOR));
      expect(result.body).toEqual({ total: 3 });
      expect(exact).toEqual([]);
    });
    // Another caller's read rule gives another filter: counted for it, never the editor's total.
    const own = await countsDuring(() => get(`/posts/count?${filter}`, U1));
    expect(own.result.body).toEqual({ total: 0 });
    expect(own.exact).toEqual(['posts']);
    // This router's write drops the total before it answers.
    expect((await request(t.app).post('/api/posts').send({ title: 'q4', status: 'published', owner: 'u2' })).status).toBe(201);
    const after = await countsDuring(() => get(`/posts/count?${filter}`, EDITOR));
    expect(after.result.body).toEqual({ total: 4 });
    expect(after.exact).toEqual(['posts']);
  });

  it('does not serve the local API from the totals cache: it counts every time', async () => {
    const { result, exact } = await countsDuring(async () => [
      await t.api.local.count('posts', { where: { title: { like: 'q%' } } }),
      await t.api.local.count('posts', { where: { title: { like: 'q%' } } }),
    ]);
    expect(result).toEqual([{ total: 4 }, { total: 4 }]);
    expect(exact).toEqual(['posts', 'posts']);
  });
});
