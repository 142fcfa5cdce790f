// GET /api/<slug> end to end, ordering and paging: both sort syntaxes, the `_id` tie-breaker, the three
// list envelopes (Form A docs, default data, cursor), page sizes and their limits, count=false, and keyset
// cursors walked forwards and backwards over duplicates and nulls; tampered and foreign cursors are a 400.
import request from 'supertest';
import { Types } from 'mongoose';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';
import { USER_ID, expectOkList, expectQueryError, idsOf, qs, recordsOf } from '../helpers/list-assertions';

const user = asUser({ id: USER_ID });

let t: TestApp;

interface Item {
  _id: Types.ObjectId;
  title: string;
  views?: number | null;
  group: string;
  publishedAt?: Date;
  createdAt: Date;
  updatedAt: Date;
  secret: string;
}

const COUNT = 45;
const BASE = Date.UTC(2024, 0, 1);
const items: Item[] = [];

beforeAll(async () => {
  t = await createTestApp({
    collections: [
      {
        slug: 'items',
        fields: {
          title: { type: 'text' },
          views: { type: 'number' },
          group: { type: 'text' },
          publishedAt: { type: 'date' },
          secret: { type: 'text', hidden: true },
        },
      },
      { slug: 'others', fields: { title: { type: 'text' }, views: { type: 'number' } } },
      { slug: 'small', pagination: { defaultLimit: 3, maxLimit: 5 }, fields: { n: { type: 'number' } } },
    ],
  });
  for (let i = 0; i < COUNT; i += 1) {
    const item: Item = {
      _id: new Types.ObjectId(),
      // A permutation of 0..44, so title order is unrelated to insertion (and id) order.
      title: `item-${String((i * 7) % COUNT).padStart(2, '0')}`,
      group: ['x', 'y', 'z'][i % 3],
      createdAt: new Date(BASE + i * 60_000),
      updatedAt: new Date(BASE + i * 60_000),
      secret: `SECRET-${i}`,
    };
    // Many duplicates (10, 20, 20, 30), some missing, some explicitly null.
    if (i % 10 === 5) item.views = null;
    else if (i % 10 !== 0) item.views = [10, 20, 20, 30][i % 4];
    if (i % 3 !== 0) item.publishedAt = new Date(BASE + (i % 4) * 86_400_000);
    items.push(item);
  }
  await t.connection.collection('items').insertMany(items.map((item) => ({ ...item })));
  await t.connection.collection('others').insertMany(
    Array.from({ length: 12 }, (_, i) => ({ title: `other-${i}`, views: i % 3, createdAt: new Date(BASE + i) })),
  );
  await t.connection.collection('small').insertMany(Array.from({ length: 8 }, (_, i) => ({ n: i, createdAt: new Date(BASE + i) })));
});

afterAll(() => t.close());
afterEach(() => expect(t.hostErrors).toEqual([]));

async function get(path: string): Promise<request.Response> {
  const res = await request(t.app).get(path).set(...user);
  expect(res.text).not.toContain('SECRET');
  return res;
}

const listItems = (query: string) => get(`/api/items?${query}`);

type SortKey = 'title' | 'views' | 'group' | 'publishedAt' | 'createdAt';

/** MongoDB order for one value: null and missing lowest and equal; then numbers, strings, dates by value. */
function compareValues(a: unknown, b: unknown): number {
  const aNull = a === undefined || a === null;
  const bNull = b === undefined || b === null;
  if (aNull || bNull) return aNull === bNull ? 0 : aNull ? -1 : 1;
  const x = a instanceof Date ? a.getTime() : (a as number | string);
  const y = b instanceof Date ? b.getTime() : (b as number | string);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Expected ids for a sort, with the `_id` tie-breaker in the direction of the last item. */
function expectedIds(sort: Array<[SortKey, 1 | -1]>, list: readonly Item[] = items): string[] {
  const tie = sort[sort.length - 1][1];
  return [...list]
    .sort((a, b) => {
      for (const [key, direction] of sort) {
        const order = compareValues(a[key], b[key]) * direction;
        if (order !== 0) return order;
      }
      return compareValues(a._id.toHexString(), b._id.toHexString()) * tie;
    })
    .map((item) => item._id.toHexString());
}

/** The API record of a seeded item: id, visible fields as stored (null kept, missing absent), ISO dates. */
function toRecord(item: Item): Record<string, unknown> {
  const record: Record<string, unknown> = { id: item._id.toHexString(), title: item.title };
  // Unset fields read as null.
  record.views = item.views ?? null;
  record.group = item.group;
  record.publishedAt = item.publishedAt ? item.publishedAt.toISOString() : null;
  record.createdAt = item.createdAt.toISOString();
  record.updatedAt = item.updatedAt.toISOString();
  return record;
}

/** Follows nextCursor from `cursor=` to the end; returns every page's ids and meta. */
async function walkForward(query: string): Promise<Array<{ ids: string[]; meta: Record<string, unknown> }>> {
  const pages: Array<{ ids: string[]; meta: Record<string, unknown> }> = [];
  let cursor = '';
  for (let guard = 0; guard < 50; guard += 1) {
    const res = await listItems(`${query}&${qs(['cursor', cursor])}`);
    expectOkList(res);
    expect(Object.keys(res.body)).toEqual(['data', 'meta']);
    expect(Object.keys(res.body.meta).sort()).toEqual(['hasNextPage', 'hasPrevPage', 'nextCursor', 'prevCursor']);
    pages.push({ ids: idsOf(res), meta: res.body.meta });
    if (!res.body.meta.hasNextPage) return pages;
    cursor = res.body.meta.nextCursor;
  }
  throw new Error('cursor walk did not end');
}

describe('sort', () => {
  it('-views,title and views:desc,title:asc give the same full order (nulls last when descending)', async () => {
    const expected = expectedIds([
      ['views', -1],
      ['title', 1],
    ]);
    for (const sort of ['-views,title', 'views:desc,title:asc', 'views:DESC,title', '-views, title:asc']) {
      const res = await listItems(`${qs(['sort', sort])}&perPage=100`);
      expectOkList(res);
      expect([sort, idsOf(res)]).toEqual([sort, expected]);
    }
    const repeated = await listItems('sort=-views&sort=title&perPage=100');
    expect(idsOf(repeated)).toEqual(expected);
    // The records agree with the ids: views descending, missing/null at the end.
    const views = recordsOf(repeated).map((record) => record.views ?? null);
    expect(views.slice(0, 9)).toEqual(Array(9).fill(30));
    expect(views.slice(-9)).toEqual(Array(9).fill(null));
  });

  it('sorts ascending with nulls first, by dates, and by text', async () => {
    for (const [sort, spec] of [
      ['views', [['views', 1]]],
      ['publishedAt:desc', [['publishedAt', -1]]],
      ['-publishedAt,-title', [['publishedAt', -1], ['title', -1]]],
      ['title:desc', [['title', -1]]],
      ['group,views:desc', [['group', 1], ['views', -1]]],
    ] as Array<[string, Array<[SortKey, 1 | -1]>]>) {
      const res = await listItems(`${qs(['sort', sort])}&perPage=100`);
      expect([sort, idsOf(res)]).toEqual([sort, expectedIds(spec)]);
    }
  });

  it('defaults to -createdAt', async () => {
    const res = await listItems('');
    expectOkList(res);
    expect(idsOf(res)).toEqual(expectedIds([['createdAt', -1]]).slice(0, 10));
  });

  it('breaks ties with _id: paging a sort with few distinct values returns every record once, stably', async () => {
    for (const [sort, spec] of [
      ['group', [['group', 1]]],
      ['-group', [['group', -1]]],
      ['views', [['views', 1]]],
      ['group:asc,views:desc', [['group', 1], ['views', -1]]],
    ] as Array<[string, Array<[SortKey, 1 | -1]>]>) {
      const seen: string[] = [];
      for (let page = 1; page <= 7; page += 1) {
        const res = await listItems(`${qs(['sort', sort])}&perPage=7&page=${page}`);
        expectOkList(res);
        expect(res.body.meta).toEqual({ total: COUNT, page, perPage: 7, totalPages: 7 });
        const again = await listItems(`${qs(['sort', sort])}&perPage=7&page=${page}`);
        expect(idsOf(again)).toEqual(idsOf(res));
        seen.push(...idsOf(res));
      }
      expect(seen).toHaveLength(COUNT);
      expect(new Set(seen).size).toBe(COUNT);
      expect([sort, seen]).toEqual([sort, expectedIds(spec)]);
    }
  });

  it('accepts id as an explicit sort field', async () => {
    const res = await listItems('sort=-id&perPage=100');
    expect(idsOf(res)).toEqual(items.map((item) => item._id.toHexString()).reverse());
  });
});

describe('page envelopes', () => {
  const byTitle = () => expectedIds([['title', 1]]);

  it('page + limit: the Form A envelope', async () => {
    const res = await listItems('sort=title&limit=10&page=2');
    expectOkList(res);
    expect(Object.keys(res.body)).toEqual(['docs', 'totalDocs', 'limit', 'page', 'totalPages', 'hasNextPage', 'hasPrevPage']);
    expect({ ...res.body, docs: idsOf(res) }).toEqual({
      docs: byTitle().slice(10, 20),
      totalDocs: COUNT,
      limit: 10,
      page: 2,
      totalPages: 5,
      hasNextPage: true,
      hasPrevPage: true,
    });
    const byId = new Map(items.map((item) => [item._id.toHexString(), item]));
    expect(res.body.docs).toEqual(idsOf(res).map((id) => toRecord(byId.get(id) as Item)));
    expect(res.body.docs[0].title).toBe('item-10');
  });

  it('Form A: first, last and past-the-end pages', async () => {
    const first = await listItems('sort=title&limit=10');
    expect({ ...first.body, docs: idsOf(first) }).toEqual({
      docs: byTitle().slice(0, 10),
      totalDocs: COUNT,
      limit: 10,
      page: 1,
      totalPages: 5,
      hasNextPage: true,
      hasPrevPage: false,
    });
    const last = await listItems('sort=title&limit=10&page=5');
    expect({ ...last.body, docs: idsOf(last) }).toEqual({
      docs: byTitle().slice(40),
      totalDocs: COUNT,
      limit: 10,
      page: 5,
      totalPages: 5,
      hasNextPage: false,
      hasPrevPage: true,
    });
    const past = await listItems('sort=title&limit=10&page=6');
    expect(past.status).toBe(200);
    expect(past.body).toEqual({ docs: [], totalDocs: COUNT, limit: 10, page: 6, totalPages: 5, hasNextPage: false, hasPrevPage: true });
  });

  it('page + perPage: the default data envelope', async () => {
    const res = await listItems('sort=title&perPage=20&page=3');
    expectOkList(res);
    expect(Object.keys(res.body)).toEqual(['data', 'meta']);
    expect(res.body.meta).toEqual({ total: COUNT, page: 3, perPage: 20, totalPages: 3 });
    expect(Object.keys(res.body.meta)).toEqual(['total', 'page', 'perPage', 'totalPages']);
    expect(idsOf(res)).toEqual(byTitle().slice(40, 45));
  });

  it('perPage wins over limit and keeps the data envelope', async () => {
    const res = await listItems('sort=title&perPage=4&limit=9');
    expect(res.body.meta).toEqual({ total: COUNT, page: 1, perPage: 4, totalPages: 12 });
    expect(idsOf(res)).toEqual(byTitle().slice(0, 4));
  });

  it('defaults to 10 per page; an empty result has 0 pages', async () => {
    const res = await listItems('sort=title');
    expect(res.body.meta).toEqual({ total: COUNT, page: 1, perPage: 10, totalPages: 5 });
    expect(idsOf(res)).toEqual(byTitle().slice(0, 10));
    const empty = await listItems('where[title][eq]=nothing');
    expect(empty.body).toEqual({ data: [], meta: { total: 0, page: 1, perPage: 10, totalPages: 0 } });
  });

  it('allows up to 100 per page and rejects 101', async () => {
    const max = await listItems('sort=title&perPage=100');
    expect(idsOf(max)).toEqual(byTitle());
    expect(max.body.meta).toEqual({ total: COUNT, page: 1, perPage: 100, totalPages: 1 });
    expectQueryError(await listItems('perPage=101'), 'perPage', 'limit_exceeded', /100/);
    expectQueryError(await listItems('limit=101'), 'limit', 'limit_exceeded', /100/);
    expectQueryError(await listItems('perPage=0'), 'perPage', 'invalid_limit');
    expectQueryError(await listItems('limit=-3'), 'limit', 'invalid_limit');
  });

  it("honours the collection's own defaultLimit and maxLimit", async () => {
    const res = await get('/api/small?sort=n');
    expect(recordsOf(res).map((record) => record.n)).toEqual([0, 1, 2]);
    expect(res.body.meta).toEqual({ total: 8, page: 1, perPage: 3, totalPages: 3 });
    const five = await get('/api/small?sort=n&perPage=5&page=2');
    expect(recordsOf(five).map((record) => record.n)).toEqual([5, 6, 7]);
    expectQueryError(await get('/api/small?perPage=6'), 'perPage', 'limit_exceeded', /maximum page size of 5/);
  });

  it('count=false omits the totals (and says whether more pages exist instead)', async () => {
    const res = await listItems('sort=title&perPage=10&page=2&count=false');
    expectOkList(res);
    expect(res.body.meta).toEqual({ page: 2, perPage: 10, hasNextPage: true, hasPrevPage: true });
    expect(idsOf(res)).toEqual(byTitle().slice(10, 20));
    // 45 = 5 x 9: the last full page knows there is nothing after it.
    const exact = await listItems('sort=title&perPage=9&page=5&count=false');
    expect(exact.body.meta).toEqual({ page: 5, perPage: 9, hasNextPage: false, hasPrevPage: true });
    expect(idsOf(exact)).toEqual(byTitle().slice(36, 45));
    const formA = await listItems('sort=title&limit=10&page=5&count=false');
    expect({ ...formA.body, docs: idsOf(formA) }).toEqual({
      docs: byTitle().slice(40),
      limit: 10,
      page: 5,
      hasNextPage: false,
      hasPrevPage: true,
    });
    const counted = await listItems('sort=title&perPage=10&count=true');
    expect(counted.body.meta).toEqual({ total: COUNT, page: 1, perPage: 10, totalPages: 5 });
  });
});

describe('cursor pagination', () => {
  it('cursor= (empty) is the first page, in the cursor envelope', async () => {
    const res = await listItems('cursor=');
    expectOkList(res);
    expect(Object.keys(res.body)).toEqual(['data', 'meta']);
    expect(res.body.meta).toEqual({ hasNextPage: true, hasPrevPage: false, nextCursor: expect.stringMatching(/^[A-Za-z0-9_-]+$/), prevCursor: null });
    expect(idsOf(res)).toEqual(expectedIds([['createdAt', -1]]).slice(0, 10));
    // Cursors carry no hidden value (hidden fields cannot be sorted on).
    expect(Buffer.from(res.body.meta.nextCursor, 'base64url').toString('utf8')).not.toContain('SECRET');
    // A page size given as limit still answers in the cursor envelope.
    const limited = await listItems('cursor=&limit=3&sort=title');
    expect(limited.body).toEqual({ data: expect.any(Array), meta: expect.objectContaining({ hasNextPage: true }) });
    expect(idsOf(limited)).toEqual(expectedIds([['title', 1]]).slice(0, 3));
  });

  it.each<[string, Array<[SortKey, 1 | -1]>]>([
    ['-views', [['views', -1]]],
    ['views', [['views', 1]]],
    ['views:desc,title:asc', [['views', -1], ['title', 1]]],
    ['group,-views', [['group', 1], ['views', -1]]],
    ['-publishedAt', [['publishedAt', -1]]],
    ['publishedAt,-group', [['publishedAt', 1], ['group', -1]]],
    ['title', [['title', 1]]],
  ])('walks forward and back through every record with sort=%s', async (sort, spec) => {
    const expected = expectedIds(spec);
    const forward = await walkForward(`${qs(['sort', sort])}&perPage=7`);
    expect(forward.map((page) => page.ids.length)).toEqual([7, 7, 7, 7, 7, 7, 3]);
    expect(forward.flatMap((page) => page.ids)).toEqual(expected);
    forward.forEach((page, index) => {
      const last = index === forward.length - 1;
      expect(page.meta).toEqual({
        hasNextPage: !last,
        hasPrevPage: index > 0,
        nextCursor: last ? null : expect.any(String),
        prevCursor: index > 0 ? expect.any(String) : null,
      });
    });

    // Backwards from the last page: the same pages, in reverse, down to a first page with nothing before it.
    const backward: string[][] = [];
    let prev = forward[forward.length - 1].meta.prevCursor as string | null;
    while (prev) {
      const res = await listItems(`${qs(['sort', sort])}&perPage=7&${qs(['cursor', prev])}`);
      expectOkList(res);
      backward.push(idsOf(res));
      expect(res.body.meta.hasNextPage).toBe(true);
      expect(typeof res.body.meta.nextCursor).toBe('string');
      prev = res.body.meta.hasPrevPage ? res.body.meta.prevCursor : null;
      if (!res.body.meta.hasPrevPage) expect(res.body.meta.prevCursor).toBeNull();
      expect(backward.length).toBeLessThan(10);
    }
    expect(backward).toEqual(forward.slice(0, -1).map((page) => page.ids).reverse());
  });

  it('a prev page followed by its next cursor returns to where it was', async () => {
    const first = await listItems('sort=-views&perPage=6&cursor=');
    const second = await listItems(`sort=-views&perPage=6&${qs(['cursor', first.body.meta.nextCursor])}`);
    const back = await listItems(`sort=-views&perPage=6&${qs(['cursor', second.body.meta.prevCursor])}`);
    expect(idsOf(back)).toEqual(idsOf(first));
    expect(back.body.meta.hasPrevPage).toBe(false);
    const again = await listItems(`sort=-views&perPage=6&${qs(['cursor', back.body.meta.nextCursor])}`);
    expect(idsOf(again)).toEqual(idsOf(second));
  });

  it('combines with where (and with filter)', async () => {
    const matching = items.filter((item) => typeof item.views === 'number' && item.views >= 20);
    const expected = expectedIds([['views', -1]], matching);
    const pages = await walkForward('sort=-views&perPage=5&where[views][gte]=20');
    expect(pages.flatMap((page) => page.ids)).toEqual(expected);
    expect(pages.every((page) => page.ids.length <= 5)).toBe(true);
    const filtered = await walkForward(`sort=-views&perPage=4&${qs(['filter', 'views:>=20'])}&where[group]=x`);
    expect(filtered.flatMap((page) => page.ids)).toEqual(expectedIds([['views', -1]], matching.filter((item) => item.group === 'x')));
  });

  it('an empty result has no cursors', async () => {
    const res = await listItems('cursor=&where[title]=none');
    expect(res.body).toEqual({ data: [], meta: { hasNextPage: false, hasPrevPage: false, nextCursor: null, prevCursor: null } });
  });

  describe('bad cursors are a 400', () => {
    let cursor: string;
    beforeAll(async () => {
      const first = await request(t.app).get('/api/items?sort=-views&perPage=5&cursor=').set(...user);
      cursor = first.body.meta.nextCursor;
    });

    const withCursor = (value: string, sort = '-views') => listItems(`${qs(['sort', sort])}&perPage=5&${qs(['cursor', value])}`);
    const encode = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value), 'utf8').toString('base64url');

    it('accepts the real cursor', async () => {
      expectOkList(await withCursor(cursor));
    });

    it.each<[string, () => string]>([
      ['garbage text', () => 'garbage'],
      ['characters outside base64url', () => 'abc$%!def'],
      ['base64 of non-JSON', () => encode('hello world')],
      ['base64 of a JSON array', () => encode([1, 2, 3])],
      ['base64 of null', () => encode('null')],
      ['base64 of JSON of the wrong shape', () => encode({ a: 1 })],
      ['base64 of an empty payload', () => encode({ s: 'x', d: 'n', v: [] })],
      ['truncated', () => cursor.slice(0, Math.floor(cursor.length / 2))],
      ['first character changed', () => (cursor[0] === 'A' ? 'B' : 'A') + cursor.slice(1)],
      ['reversed', () => [...cursor].reverse().join('')],
      ['too long', () => 'A'.repeat(9000)],
    ])('%s', async (_name, build) => {
      expectQueryError(await withCursor(build()), 'cursor', 'invalid_cursor', 'invalid cursor: it is not a cursor this API issued (pass nextCursor or prevCursor back unchanged)');
    });

    it('rejects a decoded-and-edited payload', async () => {
      const payload = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { s: string; d: string; v: unknown[] };
      const edits: Array<Record<string, unknown>> = [
        { ...payload, d: 'x' },
        { ...payload, s: 'ffffffffffffffff' },
        { ...payload, v: payload.v.slice(1) },
        { ...payload, v: [...payload.v, 1] },
        { ...payload, v: ['thirty', ...payload.v.slice(1)] },
        { ...payload, v: [payload.v[0], { o: 'not-an-object-id' }] },
        { ...payload, v: [payload.v[0], null] },
        { ...payload, v: [{ $gt: 0 }, payload.v[1]] },
        { ...payload, extra: true },
      ];
      for (const edit of edits) {
        const res = await withCursor(encode(edit));
        try {
          expectQueryError(res, 'cursor', 'invalid_cursor');
        } catch (error) {
          throw new Error(`payload ${JSON.stringify(edit)}: ${(error as Error).message}`);
        }
      }
    });

    it('never fails with a 5xx on any single-character change', async () => {
      const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
      const statuses = new Map<number, number>();
      for (let i = 0; i < cursor.length; i += 1) {
        const replacement = alphabet[(alphabet.indexOf(cursor[i]) + 17) % alphabet.length];
        const res = await withCursor(cursor.slice(0, i) + replacement + cursor.slice(i + 1));
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        // Either still a well-formed position in this list, or refused as a cursor.
        if (res.status === 400) expectQueryError(res, 'cursor', 'invalid_cursor');
        else expect([i, res.status]).toEqual([i, 200]);
      }
      expect(statuses.get(400)).toBeGreaterThan(cursor.length / 2);
    });

    it('rejects a cursor from another sort or another collection', async () => {
      expectQueryError(await withCursor(cursor, 'views'), 'cursor', 'invalid_cursor');
      expectQueryError(await withCursor(cursor, '-views,title'), 'cursor', 'invalid_cursor');
      expectQueryError(await withCursor(cursor, 'views:desc,id:asc'), 'cursor', 'invalid_cursor');
      const other = await get('/api/others?sort=-views&perPage=5&cursor=');
      expectOkList(other);
      expectQueryError(await withCursor(other.body.meta.nextCursor), 'cursor', 'invalid_cursor');
      expectQueryError(await get(`/api/others?sort=-views&perPage=5&${qs(['cursor', cursor])}`), 'cursor', 'invalid_cursor');
    });

    it('rejects cursor together with page, and a repeated cursor', async () => {
      expectQueryError(await listItems('cursor=&page=1'), 'page', 'invalid_page', /cursor/);
      expectQueryError(await listItems(`${qs(['cursor', cursor])}&page=2&sort=-views`), 'page', 'invalid_page');
      expectQueryError(await listItems(`${qs(['cursor', cursor], ['cursor', cursor])}&sort=-views`), 'cursor', 'invalid_cursor');
    });
  });
});

describe("configured defaults: listFormat 'docs' and overLimit 'clamp'", () => {
  let docsApp: TestApp;
  beforeAll(async () => {
    docsApp = await createTestApp({
      core: { api: { listFormat: 'docs', overLimit: 'clamp' } },
      collections: [{ slug: 'things', pagination: { defaultLimit: 2, maxLimit: 4 }, fields: { n: { type: 'number' } } }],
    });
    await docsApp.connection.collection('things').insertMany(Array.from({ length: 6 }, (_, i) => ({ n: i })));
  });
  afterAll(() => docsApp.close());
  afterEach(() => expect(docsApp.hostErrors).toEqual([]));

  const getThings = (query: string) => request(docsApp.app).get(`/api/things?${query}`).set(...user);
  const ns = (records: Array<Record<string, unknown>>) => records.map((record) => record.n);

  it('answers in the Form A envelope when the request names no dialect, even with perPage', async () => {
    const plain = await getThings('sort=n');
    expectOkList(plain);
    expect({ ...plain.body, docs: ns(plain.body.docs) }).toEqual({
      docs: [0, 1],
      totalDocs: 6,
      limit: 2,
      page: 1,
      totalPages: 3,
      hasNextPage: true,
      hasPrevPage: false,
    });
    const perPage = await getThings('sort=n&perPage=3&page=2');
    expect({ ...perPage.body, docs: ns(perPage.body.docs) }).toEqual({
      docs: [3, 4, 5],
      totalDocs: 6,
      limit: 3,
      page: 2,
      totalPages: 2,
      hasNextPage: false,
      hasPrevPage: true,
    });
    const cursor = await getThings('sort=n&cursor=');
    expect(Object.keys(cursor.body)).toEqual(['data', 'meta']);
    expect(ns(cursor.body.data)).toEqual([0, 1]);
  });

  it('clamps a page size above maxLimit instead of rejecting it; 0 is still a 400', async () => {
    const res = await getThings('sort=n&limit=50');
    expect(res.status).toBe(200);
    expect(res.body.limit).toBe(4);
    expect(ns(res.body.docs)).toEqual([0, 1, 2, 3]);
    expectQueryError(await getThings('limit=0'), 'limit', 'invalid_limit');
  });
});
