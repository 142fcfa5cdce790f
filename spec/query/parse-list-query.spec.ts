// parseListQuery end to end: defaults, every parameter together, search, the union of the three dialects,
// local-API values, cursor mode, and that unknown parameters are ignored.
import { Types } from 'mongoose';
import { encodeCursor } from '../../lib/query/cursor';
import { parseListQuery } from '../../lib/query/parse-list-query';
import { parseSearch } from '../../lib/query/parse-search';
import { toMongoFilter } from '../../lib/query/to-mongo-filter';
import type { QueryOptions } from '../../lib/query/types';
import { describeCollection } from '../../lib/schema/describe-collection';
import {
  OPTIONS,
  POSTS,
  authors,
  describeRejection,
  expectedRejection,
  leaf,
  parseQs,
  posts,
  registry,
  rejectionOf,
} from './fixtures';

const list = (query: string, options: QueryOptions = OPTIONS) => parseListQuery(parseQs(query), posts, registry, options);
const DEFAULT_SORT = [
  { field: 'createdAt', path: 'createdAt', direction: -1 },
  { field: 'id', path: '_id', direction: -1 },
];

describe('parseListQuery', () => {
  it('has complete defaults', () => {
    expect(list('')).toEqual({
      sort: DEFAULT_SORT,
      page: 1,
      limit: 10,
      count: true,
      populate: {},
      includeDeleted: false,
      envelope: 'data',
    });
  });

  it('ignores parameters it does not know (cache busters and the like)', () => {
    expect(list('_=1712345678&utm_source=x&$where=1&foo[bar]=1')).toEqual(list(''));
  });

  it('reads every parameter of Form A', () => {
    expect(list('where[views][gt]=5&sort=-views&limit=5&page=2&depth=1')).toEqual({
      where: leaf('views', 'gt', 5),
      sort: [
        { field: 'views', path: 'views', direction: -1 },
        { field: 'id', path: '_id', direction: -1 },
      ],
      page: 2,
      limit: 5,
      count: true,
      populate: { categories: {}, author: {} },
      includeDeleted: false,
      envelope: 'docs',
    });
  });

  it('reads every parameter of Form B', () => {
    const where = encodeURIComponent(JSON.stringify({ or: [{ status: 'draft' }, { views: { gte: 10 } }] }));
    expect(
      list(`where=${where}&sort=status:asc,createdAt:desc&perPage=3&page=2&fields=title,status,author&include=author&search=hello&includeDeleted=true&count=false`),
    ).toEqual({
      where: {
        kind: 'and',
        nodes: [
          { kind: 'or', nodes: [leaf('status', 'eq', 'draft'), leaf('views', 'gte', 10)] },
          { kind: 'or', nodes: [leaf('title', 'like', /hello/i), leaf('body', 'like', /hello/i)] },
        ],
      },
      sort: [
        { field: 'status', path: 'status', direction: 1 },
        { field: 'createdAt', path: 'createdAt', direction: -1 },
        { field: 'id', path: '_id', direction: -1 },
      ],
      page: 2,
      limit: 3,
      count: false,
      select: ['id', 'title', 'status', 'author'],
      populate: { author: {} },
      includeDeleted: true,
      envelope: 'data',
    });
  });

  it('reads every parameter of Form C, ANDing filter with where', () => {
    const query = list('filter=views:>5&filter=status:draft&where[published]=true&sort=views:desc&perPage=2&fields=title,author&include=author.company');
    expect(query.where).toEqual({
      kind: 'and',
      nodes: [leaf('published', 'eq', true), leaf('views', 'gt', 5), leaf('status', 'eq', 'draft')],
    });
    expect(query.limit).toBe(2);
    expect(query.select).toEqual(['id', 'title', 'author']);
    expect(query.populate).toEqual({ author: { company: {} } });
    expect(list('fields=title&include=author.company&depth=2').populate).toEqual({});
    expect(query.envelope).toBe('data');
  });

  it('takes values of any type from the local API', () => {
    const query = parseListQuery(
      { where: { views: { gt: 5 } }, sort: ['-views'], limit: 5, page: 2, depth: 1, count: false, includeDeleted: true, fields: ['title'] },
      posts,
      registry,
      OPTIONS,
    );
    expect(query).toMatchObject({ where: leaf('views', 'gt', 5), page: 2, limit: 5, count: false, includeDeleted: true, select: ['id', 'title'], envelope: 'docs' });
  });

  it('enters cursor mode on an empty cursor: first page, no totals', () => {
    expect(list('cursor=&perPage=4&count=true')).toEqual({
      sort: DEFAULT_SORT,
      page: 1,
      limit: 4,
      count: false,
      cursor: null,
      populate: {},
      includeDeleted: false,
      envelope: 'cursor',
    });
  });

  it('decodes a cursor against the request sort', () => {
    const id = new Types.ObjectId();
    const sort = list('sort=-views').sort;
    const cursor = encodeCursor({ _id: id, views: 7 }, sort, 'next', 'posts');
    expect(list(`sort=-views&cursor=${cursor}`).cursor).toEqual({ direction: 'next', values: [7, id] });
    expect(describeRejection(rejectionOf(() => list(`sort=views&cursor=${cursor}`)))).toEqual(
      expectedRejection('cursor', 'invalid cursor: it was made for another collection or another sort; keep the sort of the request that returned it, or start again with cursor=', 'invalid_cursor'),
    );
  });

  it('refuses a cursor with a page, and a repeated cursor', () => {
    expect(rejectionOf(() => list('cursor=&page=1')).errors?.[0]).toEqual({ field: 'page', message: 'cannot be combined with cursor', code: 'invalid_page' });
    expect(rejectionOf(() => list('cursor=a&cursor=b')).errors?.[0].code).toBe('invalid_cursor');
  });

  it('clamps or rejects page sizes per options', () => {
    expect(list('limit=500', { ...OPTIONS, overLimit: 'clamp' }).limit).toBe(100);
    expect(rejectionOf(() => list('limit=500')).errors?.[0].code).toBe('limit_exceeded');
  });

  it('uses the configured envelope when the request names no dialect', () => {
    expect(list('page=2', { ...OPTIONS, listFormat: 'docs' }).envelope).toBe('docs');
  });

  it.each([
    ['where={bad', 'where'],
    ['filter=nope:1', 'filter.nope'],
    ['sort=nope', 'sort'],
    ['page=0', 'page'],
    ['perPage=0', 'perPage'],
    ['count=maybe', 'count'],
    ['includeDeleted=1', 'includeDeleted'],
    ['depth=9', 'depth'],
    ['include=title', 'include'],
    ['fields=secret', 'fields'],
    [`search=${'x'.repeat(201)}`, 'search'],
    ['cursor=%%%', 'cursor'],
  ])('%s is a 400 naming %s', (query, field) => {
    const error = rejectionOf(() => list(query));
    expect(error.status).toBe(400);
    expect(error.errors?.[0].field).toBe(field);
  });

  it('produces a Mongo filter with where, filter and search ANDed', () => {
    expect(toMongoFilter(list('where[views][gt]=1&filter=status:draft&search=a.b').where)).toEqual({
      $and: [
        { views: { $gt: 1 } },
        { status: { $eq: 'draft' } },
        { $or: [{ title: /a\.b/i }, { body: /a\.b/i }] },
      ],
    });
  });
});

describe('parseSearch', () => {
  it.each([[undefined], [''], ['   ']])('%p searches nothing', (input) => expect(parseSearch(input, posts)).toBeUndefined());

  it('ORs a case-insensitive, escaped substring over the search fields', () => {
    expect(parseSearch('  50%_off(*)  ', posts)).toEqual({
      kind: 'or',
      nodes: [leaf('title', 'like', /50%_off\(\*\)/i), leaf('body', 'like', /50%_off\(\*\)/i)],
    });
  });

  it('defaults to the visible text, textarea and email fields', () => {
    expect(parseSearch('ann', authors)).toEqual({
      kind: 'or',
      nodes: [leaf('name', 'like', /ann/i, authors), leaf('email', 'like', /ann/i, authors)],
    });
  });

  it('follows a configured list, skipping hidden and non-text fields', () => {
    const custom = describeCollection({ ...POSTS, search: ['tags', 'secret', 'views', 'nope'] });
    expect(parseSearch('x', custom)).toEqual(leaf('tags', 'like', /x/i, custom));
  });

  it('accepts 200 characters', () => expect(parseSearch('x'.repeat(200), posts)).toBeDefined());

  it.each<[unknown, string]>([
    ['x'.repeat(201), 'longer than 200 characters'],
    [['a', 'b'], 'expected a single string'],
    [{ $ne: 1 }, 'expected a single string'],
    [5, 'expected a single string'],
  ])('%p is a 400', (input, message) => {
    expect(describeRejection(rejectionOf(() => parseSearch(input, posts)))).toEqual(expectedRejection('search', message, 'invalid_search'));
  });

  it('is a 400 on a collection with nothing to search', () => {
    const numbers = describeCollection({ slug: 'numbers', fields: { n: { type: 'number' } } });
    expect(describeRejection(rejectionOf(() => parseSearch('x', numbers)))).toEqual(
      expectedRejection('search', 'this collection has no searchable fields', 'invalid_search'),
    );
  });
});
