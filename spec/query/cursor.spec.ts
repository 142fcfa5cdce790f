// Keyset cursors: encode/decode round trips, tampered and foreign cursors, the exact keyset filter, and
// a simulation walking every page forwards and backwards over rows with ties and nulls (filters run by sift).
import sift from 'sift';
import { Types } from 'mongoose';
import { cursorFilter, reverseSort } from '../../lib/query/cursor-filter';
import { decodeCursor, encodeCursor, signCursor } from '../../lib/query/cursor';
import { parseListQuery } from '../../lib/query/parse-list-query';
import { parseSort } from '../../lib/query/parse-sort';
import type { CursorPosition, SortItem } from '../../lib/query/types';
import { OPTIONS, authors, describeRejection, expectedRejection, parseQs, posts, registry, rejectionOf } from './fixtures';

type Row = Record<string, unknown>;

const ID = new Types.ObjectId('65a1b2c3d4e5f60718293a4b');
const AUTHOR = new Types.ObjectId('65a1b2c3d4e5f60718293a4c');
const WHEN = new Date('2024-05-01T10:20:30.456Z');
const sortOf = (text: string) => parseSort(text, posts);
const INVALID = expectedRejection('cursor', 'invalid cursor: it is not a cursor this API issued (pass nextCursor or prevCursor back unchanged)', 'invalid_cursor');
const OTHER_SORT = expectedRejection('cursor', 'invalid cursor: it was made for another collection or another sort; keep the sort of the request that returned it, or start again with cursor=', 'invalid_cursor');

function decode(cursor: unknown, sort: SortItem[]) {
  return decodeCursor(cursor, sort, posts);
}

function repack(cursor: string, change: (payload: Record<string, unknown>) => unknown): string {
  const payload = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Record<string, unknown>;
  return Buffer.from(JSON.stringify(change(payload)), 'utf8').toString('base64url');
}

describe('encodeCursor / decodeCursor', () => {
  const sort = sortOf('-publishedAt,title,views,published,author');
  const row: Row = { _id: ID, publishedAt: WHEN, title: 'Hello', views: 3.5, published: false, author: AUTHOR, body: 'ignored' };

  it('round-trips every value type, restoring Dates and ObjectIds', () => {
    const position = decode(encodeCursor(row, sort, 'next', 'posts'), sort);
    expect(position).toEqual({ direction: 'next', values: [WHEN, 'Hello', 3.5, false, AUTHOR, ID] });
    expect(position.values[0]).toBeInstanceOf(Date);
    expect(position.values[4]).toBeInstanceOf(Types.ObjectId);
  });

  it('round-trips nulls and missing values, and the prev direction', () => {
    const position = decode(encodeCursor({ _id: ID, title: null }, sort, 'prev', 'posts'), sort);
    expect(position).toEqual({ direction: 'prev', values: [null, null, null, null, null, ID] });
  });

  it('is opaque base64url', () => {
    expect(encodeCursor(row, sort, 'next', 'posts')).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it('signs the collection and the normalized sort', () => {
    expect(signCursor('posts', sortOf('-views'))).toBe(signCursor('posts', sortOf('views:desc')));
    expect(signCursor('posts', sortOf('-views'))).not.toBe(signCursor('posts', sortOf('views')));
    expect(signCursor('posts', sortOf('-views'))).not.toBe(signCursor('pages', sortOf('-views')));
  });

  it('refuses to encode values no cursor can carry (a programming error, not a 400)', () => {
    expect(() => encodeCursor({ _id: ID, title: { a: 1 } }, sortOf('title'), 'next', 'posts')).toThrow(/cannot encode/);
    expect(() => encodeCursor({ _id: ID, publishedAt: new Date('x') }, sortOf('publishedAt'), 'next', 'posts')).toThrow(/invalid Date/);
  });

  const good = encodeCursor(row, sort, 'next', 'posts');
  it.each<[string, unknown]>([
    ['a number', 5],
    ['an array', [good]],
    ['not base64url', `${good}!`],
    ['padding', `${good}=`],
    ['truncated', good.slice(0, -3)],
    ['too long', 'A'.repeat(8193)],
    ['not JSON', Buffer.from('hello').toString('base64url')],
    ['a JSON array', Buffer.from('[]').toString('base64url')],
    ['an extra key', repack(good, (p) => ({ ...p, x: 1 }))],
    ['a missing key', repack(good, ({ s, v }) => ({ s, v }))],
    ['a bad direction', repack(good, (p) => ({ ...p, d: 'x' }))],
    ['too few values', repack(good, (p) => ({ ...p, v: (p.v as unknown[]).slice(1) }))],
    ['values not a list', repack(good, (p) => ({ ...p, v: {} }))],
    ['a string for a date', repack(good, (p) => ({ ...p, v: ['2024-05-01', ...(p.v as unknown[]).slice(1)] }))],
    ['a date not as encoded', repack(good, (p) => ({ ...p, v: [{ d: '2024-05-01' }, ...(p.v as unknown[]).slice(1)] }))],
    ['a date with extra keys', repack(good, (p) => ({ ...p, v: [{ d: WHEN.toISOString(), $gt: 1 }, ...(p.v as unknown[]).slice(1)] }))],
    ['an object for a string', repack(good, (p) => ({ ...p, v: [(p.v as unknown[])[0], { $ne: null }, ...(p.v as unknown[]).slice(2)] }))],
    ['a string for a number', repack(good, (p) => ({ ...p, v: [...(p.v as unknown[]).slice(0, 2), '3', ...(p.v as unknown[]).slice(3)] }))],
    ['a bad ObjectId', repack(good, (p) => ({ ...p, v: [...(p.v as unknown[]).slice(0, 5), { o: 'xyz' }] }))],
    ['a null _id', repack(good, (p) => ({ ...p, v: [...(p.v as unknown[]).slice(0, 5), null] }))],
  ])('refuses %s', (_label, cursor) => {
    expect(describeRejection(rejectionOf(() => decode(cursor, sort)))).toEqual(INVALID);
  });

  it('refuses a forged signature as a cursor of another sort', () => {
    const forged = repack(good, (p) => ({ ...p, s: '0000000000000000' }));
    expect(describeRejection(rejectionOf(() => decode(forged, sort)))).toEqual(OTHER_SORT);
  });

  it('refuses a cursor made for another sort', () => {
    const cursor = encodeCursor(row, sortOf('-views'), 'next', 'posts');
    expect(describeRejection(rejectionOf(() => decode(cursor, sortOf('views'))))).toEqual(OTHER_SORT);
  });

  it('refuses a cursor made for another collection', () => {
    const cursor = encodeCursor({ _id: ID, name: 'x' }, parseSort('name', authors), 'next', 'authors');
    expect(describeRejection(rejectionOf(() => decodeCursor(cursor, parseSort('name', authors), posts)))).toEqual(OTHER_SORT);
  });
});

describe('cursorFilter', () => {
  it('expands ties over every prefix (next, descending with nulls)', () => {
    const sort = sortOf('-views,title');
    expect(cursorFilter(sort, { direction: 'next', values: [5, 'b', ID] })).toEqual({
      $or: [
        { $or: [{ views: { $lt: 5 } }, { views: { $eq: null } }] },
        { views: { $eq: 5 }, title: { $gt: 'b' } },
        { views: { $eq: 5 }, title: { $eq: 'b' }, _id: { $gt: ID } },
      ],
    });
  });

  it('skips branches nothing can satisfy (descending after null, ascending before null)', () => {
    expect(cursorFilter(sortOf('-views'), { direction: 'next', values: [null, ID] })).toEqual({
      views: { $eq: null },
      _id: { $lt: ID },
    });
    expect(cursorFilter(sortOf('views'), { direction: 'prev', values: [null, ID] })).toEqual({
      views: { $eq: null },
      _id: { $lt: ID },
    });
    expect(cursorFilter(sortOf('views'), { direction: 'next', values: [null, ID] })).toEqual({
      $or: [{ views: { $ne: null } }, { views: { $eq: null }, _id: { $gt: ID } }],
    });
  });

  it('throws when values and sort do not line up (a programming error)', () => {
    expect(() => cursorFilter(sortOf('views'), { direction: 'next', values: [ID] })).toThrow(/1 cursor values for 2 sort items/);
  });

  it('reverseSort flips every direction', () => {
    expect(reverseSort(sortOf('-views,title'))).toEqual([
      { field: 'views', path: 'views', direction: 1 },
      { field: 'title', path: 'title', direction: -1 },
      { field: 'id', path: '_id', direction: -1 },
    ]);
  });
});

// ---- Simulation: Mongo's ordering in JS, pages fetched with cursorFilter evaluated by sift. ----

/** Mongo's order within one BSON type, null and missing lowest and equal to each other. */
function compareValues(a: unknown, b: unknown): number {
  const aNull = a === null || a === undefined;
  const bNull = b === null || b === undefined;
  if (aNull || bNull) return aNull && bNull ? 0 : aNull ? -1 : 1;
  if (a instanceof Types.ObjectId && b instanceof Types.ObjectId) return compareValues(a.toHexString(), b.toHexString());
  if (a instanceof Date && b instanceof Date) return a.getTime() - b.getTime();
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  throw new Error(`simulation: cannot compare ${String(a)} with ${String(b)}`);
}

function mongoSort(rows: Row[], sort: readonly SortItem[]): Row[] {
  return [...rows].sort((a, b) => {
    for (const item of sort) {
      const order = compareValues(a[item.path], b[item.path]) * item.direction;
      if (order !== 0) return order;
    }
    return 0;
  });
}

/** Deterministic rows with many ties, nulls and missing values. */
function makeRows(count: number): Row[] {
  let seed = 42;
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    // The low bits of this generator cycle quickly; the high ones do not.
    return Math.floor(seed / 65536) % n;
  };
  const pick = <T>(values: T[]): T => values[random(values.length)];
  const MISSING = Symbol('missing');
  const authorsIds = [new Types.ObjectId('65a1b2c3d4e5f60718293a01'), new Types.ObjectId('65a1b2c3d4e5f60718293a02')];
  const dates = [new Date('2024-01-01T00:00:00Z'), new Date('2024-06-01T00:00:00Z')];
  return Array.from({ length: count }, (_, index) => {
    const row: Row = { _id: new Types.ObjectId((0x65a1b2c3 + random(1000)).toString(16) + index.toString(16).padStart(16, '0')) };
    const set = (name: string, value: unknown) => {
      if (value !== MISSING) row[name] = value;
    };
    set('views', pick<unknown>([MISSING, null, 1, 2, 2, 3]));
    set('title', pick<unknown>([MISSING, null, 'a', 'b', 'B', 'c']));
    set('publishedAt', pick<unknown>([MISSING, null, ...dates]));
    set('published', pick<unknown>([MISSING, null, true, false]));
    set('author', pick<unknown>([MISSING, null, ...authorsIds]));
    set('createdAt', pick(dates));
    return row;
  });
}

const ROWS = makeRows(60);
const ids = (rows: Row[]) => rows.map((row) => String(row._id));

/** The cursor of `row` as the client would send it back: encoded, then decoded by parseListQuery. */
function roundTrip(row: Row, sortText: string, direction: 'next' | 'prev'): { sort: SortItem[]; position: CursorPosition } {
  const sort = sortOf(sortText);
  const cursor = encodeCursor(row, sort, direction, 'posts');
  const query = parseListQuery(parseQs(`sort=${encodeURIComponent(sortText)}&cursor=${cursor}`), posts, registry, OPTIONS);
  if (!query.cursor) throw new Error('simulation: no cursor decoded');
  return { sort: query.sort, position: query.cursor };
}

function pageAfter(rows: Row[], sort: SortItem[], position: CursorPosition | null, size: number): Row[] {
  const candidates = position ? rows.filter(sift(cursorFilter(sort, position))) : rows;
  if (!position || position.direction === 'next') return mongoSort(candidates, sort).slice(0, size);
  return mongoSort(candidates, reverseSort(sort)).slice(0, size).reverse();
}

const SORTS = [
  '-createdAt',
  'views',
  '-views',
  'title:asc,views:desc',
  '-title,-views',
  'publishedAt,-views,title',
  '-published,title',
  'author:desc,publishedAt:asc',
  'published,author,-views,title:desc',
  '-id',
  'id',
];

describe('cursor pagination walk (simulated with sift)', () => {
  describe.each(SORTS)('sort=%s', (sortText) => {
    const sort = sortOf(sortText);
    const expected = ids(mongoSort(ROWS, sort));

    it.each([1, 2, 3, 7, 60, 100])('forwards, %d per page, yields every row once in order', (size) => {
      const seen: Row[] = [];
      let page = pageAfter(ROWS, sort, null, size);
      for (let guard = 0; page.length > 0; guard += 1) {
        if (guard > ROWS.length) throw new Error('simulation: the walk does not advance');
        seen.push(...page);
        const { sort: decodedSort, position } = roundTrip(page[page.length - 1], sortText, 'next');
        page = pageAfter(ROWS, decodedSort, position, size);
      }
      expect(ids(seen)).toEqual(expected);
    });

    it.each([1, 2, 3, 7, 60])('backwards, %d per page, yields every row once in order', (size) => {
      const seen: Row[] = [];
      let page = mongoSort(ROWS, reverseSort(sort)).slice(0, size).reverse();
      for (let guard = 0; page.length > 0; guard += 1) {
        if (guard > ROWS.length) throw new Error('simulation: the walk does not advance');
        seen.unshift(...page);
        const { sort: decodedSort, position } = roundTrip(page[0], sortText, 'prev');
        page = pageAfter(ROWS, decodedSort, position, size);
      }
      expect(ids(seen)).toEqual(expected);
    });

    it('prev from any row returns exactly the rows before it', () => {
      const ordered = mongoSort(ROWS, sort);
      ordered.forEach((row, index) => {
        const { position } = roundTrip(row, sortText, 'prev');
        expect(ids(pageAfter(ROWS, sort, position, ROWS.length))).toEqual(ids(ordered.slice(0, index)));
      });
    });
  });

  it('the simulated rows really have ties and nulls on every field', () => {
    for (const name of ['views', 'title', 'publishedAt', 'published', 'author']) {
      expect(ROWS.some((row) => !(name in row))).toBe(true);
      expect(ROWS.some((row) => row[name] === null)).toBe(true);
    }
    expect(new Set(ids(ROWS)).size).toBe(ROWS.length);
  });
});
