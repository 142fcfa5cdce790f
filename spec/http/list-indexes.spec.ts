// `sortable` and `indexes` end to end: the indexes exist in MongoDB (no duplicates), a sort outside
// `sortable` is a 400 listing the allowed fields, allowed sorts page and walk cursors correctly (over ties,
// missing values and soft-deleted records), the start-up warning, and, where the server can explain a
// query, that a deep cursor page examines about as many records as the first one.
import request from 'supertest';
import { Types, type Connection } from 'mongoose';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';
import { USER_ID, expectOkList, expectQueryError, idsOf, qs } from '../helpers/list-assertions';
import { capabilities, closeTestConnection, itIf, openTestConnection } from '../helpers/test-db';
import { withNodeEnv } from '../helpers/node-env';
import { contentRouter, type CollectionConfig, type ContentConfig } from '../../lib';

const user = asUser({ id: USER_ID });
const silent = { error: () => undefined, warn: () => undefined, info: () => undefined };

const POSTS: CollectionConfig = {
  slug: 'posts',
  softDelete: true,
  sortable: ['publishedAt', 'title'],
  indexes: [{ fields: { status: 1, publishedAt: -1 } }],
  fields: {
    title: { type: 'text' },
    views: { type: 'number' },
    status: { type: 'select', options: ['draft', 'published'] },
    publishedAt: { type: 'date' },
    secret: { type: 'text', hidden: true },
  },
};
const ARTICLES: CollectionConfig = { slug: 'articles', sortable: ['publishedAt'], fields: { title: { type: 'text' }, publishedAt: { type: 'date' } } };
const NOTES: CollectionConfig = { slug: 'notes', fields: { body: { type: 'text' }, rank: { type: 'number' } } };

interface Post {
  _id: Types.ObjectId;
  title: string;
  views: number;
  status: string;
  publishedAt?: Date;
  deletedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

const BASE = Date.UTC(2024, 0, 1);
const DAY = 86_400_000;
const posts: Post[] = [];
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ collections: [POSTS, ARTICLES, NOTES] });
  for (let i = 0; i < 40; i += 1) {
    const post: Post = {
      _id: new Types.ObjectId(),
      title: `post-${String((i * 11) % 40).padStart(2, '0')}`,
      views: i,
      status: i % 2 ? 'published' : 'draft',
      // Ties on every 13th day, and some records without a date.
      ...(i % 7 === 3 ? {} : { publishedAt: new Date(BASE + (i % 13) * DAY) }),
      deletedAt: i % 9 === 4 ? new Date(BASE) : null,
      createdAt: new Date(BASE + i * 60_000),
      updatedAt: new Date(BASE + i * 60_000),
    };
    posts.push(post);
  }
  await t.connection.collection('posts').insertMany(posts.map((p) => ({ ...p, secret: 'x' })));
});

afterAll(async () => {
  await t?.close();
});

/** MongoDB's order: missing dates lowest; ties broken by _id in the direction of the last sort item. */
function ordered(records: Post[], key: 'publishedAt' | 'title', direction: 1 | -1): string[] {
  const value = (p: Post): number | string => (key === 'title' ? p.title : (p.publishedAt?.getTime() ?? -Infinity));
  return [...records]
    .sort((a, b) => {
      const x = value(a);
      const y = value(b);
      if (x !== y) return (x < y ? -1 : 1) * direction;
      return a._id.toHexString().localeCompare(b._id.toHexString()) * direction;
    })
    .map((p) => p._id.toHexString());
}

const live = () => posts.filter((p) => p.deletedAt === null);

/** Walks every cursor page forwards, then back again from the last one; returns both walks' ids. */
async function walk(query: string, perPage: number): Promise<{ forwards: string[]; backwards: string[] }> {
  const forwards: string[] = [];
  const pages: string[][] = [];
  let cursor = '';
  let prev: string | null = null;
  for (let guard = 0; guard < 50; guard += 1) {
    const res = await request(t.app).get(`/api/posts?${query}&${qs(['perPage', perPage], ['cursor', cursor])}`).set(...user);
    expectOkList(res);
    pages.push(idsOf(res));
    forwards.push(...idsOf(res));
    prev = res.body.meta.prevCursor;
    if (!res.body.meta.hasNextPage) break;
    cursor = res.body.meta.nextCursor;
  }
  const backwards: string[] = [...pages[pages.length - 1]];
  while (prev) {
    const res = await request(t.app).get(`/api/posts?${query}&${qs(['perPage', perPage], ['cursor', prev])}`).set(...user);
    expectOkList(res);
    backwards.unshift(...idsOf(res));
    prev = res.body.meta.hasPrevPage ? res.body.meta.prevCursor : null;
  }
  return { forwards, backwards };
}

const keysOf = async (connection: Connection, slug: string) =>
  (await connection.collection(slug).indexes()).map((index) => ({ key: index.key, ...(index.unique && { unique: true }) }));

describe('the indexes', () => {
  it('sortable fields get { field: 1, _id: 1 } and the deletedAt variant, declared indexes get _id, nothing twice', async () => {
    const keys = await keysOf(t.connection, 'posts');
    expect(keys.map((k) => k.key)).toEqual(
      expect.arrayContaining([
        { _id: 1 },
        { createdAt: -1, _id: -1 },
        { deletedAt: 1, createdAt: -1, _id: -1 },
        { publishedAt: 1, _id: 1 },
        { deletedAt: 1, publishedAt: 1, _id: 1 },
        { title: 1, _id: 1 },
        { deletedAt: 1, title: 1, _id: 1 },
        { status: 1, publishedAt: -1, _id: -1 },
      ]),
    );
    expect(keys).toHaveLength(8);
  });

  it('a collection without sortable or indexes keeps the indexes it had', async () => {
    expect((await keysOf(t.connection, 'notes')).map((k) => k.key)).toEqual([{ _id: 1 }, { createdAt: -1, _id: -1 }]);
    expect((await keysOf(t.connection, 'articles')).map((k) => k.key)).toEqual([{ _id: 1 }, { createdAt: -1, _id: -1 }, { publishedAt: 1, _id: 1 }]);
  });
});

describe('a sort outside sortable', () => {
  const allowed = /; sort on one of: publishedAt, title, createdAt, id$/;

  it.each(['sort=-views', 'sort=views:desc', 'sort=title,updatedAt', 'sort=nope', 'sort=secret'])('%s is a 400 listing the allowed fields', async (query) => {
    const res = await request(t.app).get(`/api/posts?${query}`).set(...user);
    const entry = expectQueryError(res, 'sort', 'invalid_sort', allowed);
    expect(entry.message).toMatch(/^"(views|updatedAt|nope|secret)" is not sortable/);
  });

  it('a hidden field reads exactly like an unknown one', async () => {
    const hidden = await request(t.app).get('/api/posts?sort=secret').set(...user);
    const unknown = await request(t.app).get('/api/posts?sort=nosuch').set(...user);
    expect(hidden.status).toBe(400);
    expect(JSON.stringify(hidden.body).replaceAll('secret', 'X')).toBe(JSON.stringify(unknown.body).replaceAll('nosuch', 'X'));
  });

  it('createdAt and id stay allowed, either way round', async () => {
    for (const sort of ['-createdAt', 'createdAt', 'id:desc', 'id']) {
      expectOkList(await request(t.app).get(`/api/posts?sort=${sort}`).set(...user));
    }
  });

  it('without sortable every field still sorts, as before', async () => {
    expectOkList(await request(t.app).get('/api/notes?sort=-rank,body').set(...user));
  });
});

describe('allowed sorts page correctly', () => {
  it('cursors walk -publishedAt over ties and missing dates, forwards and back, soft-deleted records left out', async () => {
    const expected = ordered(live(), 'publishedAt', -1);
    const { forwards, backwards } = await walk('sort=-publishedAt', 6);
    expect(forwards).toEqual(expected);
    expect(backwards).toEqual(expected);
  });

  it('cursors walk title:asc', async () => {
    const { forwards, backwards } = await walk('sort=title:asc', 7);
    expect(forwards).toEqual(ordered(live(), 'title', 1));
    expect(backwards).toEqual(forwards);
  });

  it('a filter with its compound index: status then -publishedAt', async () => {
    const { forwards } = await walk('filter=status:published&sort=-publishedAt', 4);
    expect(forwards).toEqual(ordered(live().filter((p) => p.status === 'published'), 'publishedAt', -1));
  });

  it('page mode with includeDeleted', async () => {
    const admin = asUser({ id: USER_ID, role: 'admin' });
    const res = await request(t.app).get(`/api/posts?${qs(['sort', 'publishedAt'], ['perPage', 5], ['page', 3], ['includeDeleted', true])}`).set(...admin);
    expectOkList(res);
    expect(idsOf(res)).toEqual(ordered(posts, 'publishedAt', 1).slice(10, 15));
    expect(res.body.meta.total).toBe(posts.length);
  });
});

describe('the start-up warning', () => {
  let connection: Connection;
  beforeAll(async () => {
    connection = await openTestConnection();
  });
  afterAll(async () => {
    await closeTestConnection(connection);
  });

  /** Builds a router on `collections` with `options`, and returns what it logged through `logger.warn` once ready. */
  async function startupWarnings(collections: CollectionConfig[], options: Pick<ContentConfig, 'warnings'> = {}): Promise<unknown[][]> {
    const warnings: unknown[][] = [];
    const api = contentRouter({
      db: { connection },
      logger: { ...silent, warn: (...args: unknown[]) => void warnings.push(args) },
      collections,
      ...options,
    });
    try {
      await api.ready;
      // Built once per router, not per request.
      const app = (await import('express')).default().use('/api', api);
      await request(app).get('/api/notes?sort=body');
      await request(app).get('/api/notes?sort=rank');
    } finally {
      await api.close();
    }
    return warnings;
  }

  const COLLECTIONS = [POSTS, NOTES, { ...NOTES, slug: 'jottings' }, { ...NOTES, slug: 'quiet', sortable: [] }];
  const LIST =
    'content-router: no index serves these sorts, so such lists sort in memory and deeper pages read more records:\n' +
    '  - notes: updatedAt, body, rank\n' +
    '  - jottings: updatedAt, body, rank\n' +
    'Declare `sortable` on a collection with the fields clients sort on, to index them and refuse the rest (`sortable: []` allows ' +
    'only createdAt and id), or turn this off with `warnings: { unindexedSorts: false }`.';

  it('one message for the whole router, a short line per collection without sortable; none for those with it', async () => {
    expect(await withNodeEnv('production', () => startupWarnings(COLLECTIONS))).toEqual([[LIST]]);
  });

  it('is silent under NODE_ENV=test unless asked for, and silenced by warnings.unindexedSorts: false', async () => {
    expect(process.env.NODE_ENV).toBe('test');
    expect(await startupWarnings(COLLECTIONS)).toEqual([]);
    expect(await startupWarnings(COLLECTIONS, { warnings: { unindexedSorts: true } })).toEqual([[LIST]]);
    expect(await withNodeEnv('production', () => startupWarnings(COLLECTIONS, { warnings: { unindexedSorts: false } }))).toEqual([]);
    expect(await withNodeEnv('development', () => startupWarnings(COLLECTIONS, { warnings: {} }))).toEqual([[LIST]]);
  });
});

describe('deep cursor pages', () => {
  const TOTAL = 1000;
  const LIMIT = 10;

  interface Explained {
    executionStats: { totalDocsExamined: number; nReturned: number };
    queryPlanner: { winningPlan: unknown };
  }

  /** Runs `path` and explains the find the router sent for it, exactly as sent. */
  async function explainRequest(path: string): Promise<{ body: Record<string, unknown>; explained: Explained }> {
    const finds: unknown[][] = [];
    const listener = (op: { collectionName: string; method: string; params: unknown[] }) => {
      if (op.collectionName === 'articles' && op.method === 'find') finds.push(op.params);
    };
    t.connection.on('operation-start', listener);
    let res;
    try {
      res = await request(t.app).get(path).set(...user);
    } finally {
      t.connection.off('operation-start', listener);
    }
    expectOkList(res);
    expect(finds).toHaveLength(1);
    const [filter, options] = finds[0] as [Record<string, unknown>, Record<string, unknown>];
    const cursor = t.connection.db!.collection('articles').find(filter, options as object);
    return { body: res.body, explained: (await cursor.explain('executionStats')) as unknown as Explained };
  }

  function expectIndexWalk(explained: Explained): void {
    const plan = JSON.stringify(explained.queryPlanner.winningPlan);
    expect(plan).toContain('"stage":"IXSCAN"');
    expect(plan).not.toMatch(/"stage":"SORT"/);
    expect(explained.executionStats.totalDocsExamined).toBeLessThanOrEqual(LIMIT + 1);
  }

  itIf(capabilities().explain, 'the server has no explain command (mongo-java-server)')(
    'sort=-publishedAt: page 1 and the page after record 900 of 1000 both read about `limit` records through the index',
    async () => {
      const docs = Array.from({ length: TOTAL }, (_, i) => ({
        _id: new Types.ObjectId(),
        title: `a-${i}`,
        publishedAt: new Date(BASE + ((i * 379) % TOTAL) * 60_000),
        createdAt: new Date(BASE + i),
        updatedAt: new Date(BASE + i),
      }));
      await t.connection.collection('articles').insertMany(docs);

      const first = await explainRequest(`/api/articles?${qs(['sort', '-publishedAt'], ['perPage', LIMIT], ['cursor', ''])}`);
      expectIndexWalk(first.explained);

      // Walk to record 900 in pages of 100, then ask for the next page of 10.
      let cursor = '';
      for (let page = 0; page < 9; page += 1) {
        const res = await request(t.app).get(`/api/articles?${qs(['sort', '-publishedAt'], ['perPage', 100], ['cursor', cursor])}`).set(...user);
        expectOkList(res);
        cursor = res.body.meta.nextCursor;
      }
      const deep = await explainRequest(`/api/articles?${qs(['sort', '-publishedAt'], ['perPage', LIMIT], ['cursor', cursor])}`);
      const expected = [...docs].sort((a, b) => b.publishedAt.getTime() - a.publishedAt.getTime()).slice(900, 900 + LIMIT);
      expect((deep.body.data as Array<{ id: string }>).map((r) => r.id)).toEqual(expected.map((d) => d._id.toHexString()));
      expectIndexWalk(deep.explained);
      expect(deep.explained.executionStats.totalDocsExamined).toBeLessThanOrEqual(first.explained.executionStats.totalDocsExamined + 1);
    },
  );
});
