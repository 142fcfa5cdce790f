// queryKey: the same question in different textual forms gets one key; anything that changes the
// answer gets another. Pure: parsed queries, no database.
import { Types } from 'mongoose';
import { parseListQuery } from '../../lib/query/parse-list-query';
import { parseRecordQuery } from '../../lib/query/parse-record-query';
import { mongoFilterKey, queryKey, whereKey } from '../../lib/query/query-key';
import { OPTIONS, leaf, parseQs, posts, registry } from './fixtures';

const listKey = (query: string) => queryKey(parseListQuery(parseQs(query), posts, registry, OPTIONS));
const recordKey = (query: string, id = 'a'.repeat(24)) => queryKey(parseRecordQuery(parseQs(query), posts, registry, OPTIONS), id);

describe('queryKey', () => {
  it.each([
    ['parameter order', 'where[views][gt]=5&where[status][eq]=draft&perPage=5', 'perPage=5&where[status][eq]=draft&where[views][gt]=5'],
    ['shorthand equality', 'where[status]=draft', 'where[status][eq]=draft'],
    ['bracket vs JSON where', 'where[views][gte]=10&perPage=3', `where=${encodeURIComponent(JSON.stringify({ views: { gte: 10 } }))}&perPage=3`],
    ['the order of an in list', 'where[status][in]=draft,published', 'where[status][in]=published,draft'],
    ['the order of fields', 'fields=title,status', 'fields=status,title'],
    ['repeated sort parameters vs a comma list', 'sort=-views&sort=title', 'sort=-views,title'],
    ['the order of includes', 'include=author,categories', 'include=categories,author'],
    ['nested and flattened', `where=${encodeURIComponent(JSON.stringify({ and: [{ views: { gt: 1 } }, { and: [{ status: 'draft' }] }] }))}`, 'where[status]=draft&where[views][gt]=1'],
    ['a default page written out', 'perPage=5', 'perPage=5&page=1'],
  ])('is the same across %s', (_name, a, b) => {
    expect(listKey(a)).toBe(listKey(b));
  });

  it.each([
    ['a different value', 'where[views][gt]=5', 'where[views][gt]=6'],
    ['a number vs a string-looking value', 'where[title][eq]=5', 'where[views][eq]=5'],
    ['a different operator', 'where[views][gt]=5', 'where[views][gte]=5'],
    ['and vs or', `where=${encodeURIComponent(JSON.stringify({ or: [{ views: { gt: 1 } }, { status: 'draft' }] }))}`, 'where[views][gt]=1&where[status]=draft'],
    ['the sort direction', 'sort=views', 'sort=-views'],
    ['the sort order of two fields', 'sort=views,title', 'sort=title,views'],
    ['the page', 'perPage=5&page=1', 'perPage=5&page=2'],
    ['the page size', 'perPage=5', 'perPage=6'],
    ['count=false', 'perPage=5', 'perPage=5&count=false'],
    ['selected fields', 'fields=title', 'fields=title,status'],
    ['population', 'include=author', ''],
    ['population depth', 'include=author', 'include=author.company'],
    ['includeDeleted', 'includeDeleted=true', ''],
    ['the envelope', 'page=1&limit=5', 'page=1&perPage=5'],
    ['cursor mode', 'cursor=', ''],
    ['a like pattern', 'where[title][like]=ab', 'where[title][like]=abc'],
    ['between bounds order', 'where[views][between]=1,5', 'where[views][between]=5,1'],
  ])('differs on %s', (_name, a, b) => {
    expect(listKey(a)).not.toBe(listKey(b));
  });

  it('tells dates, ObjectIds and strings apart', () => {
    const id = new Types.ObjectId();
    expect(whereKey(leaf('title', 'eq', id.toHexString()))).not.toBe(whereKey(leaf('author', 'eq', id)));
    expect(whereKey(leaf('publishedAt', 'eq', new Date(0)))).not.toBe(whereKey(leaf('publishedAt', 'eq', '1970-01-01T00:00:00.000Z')));
    expect(whereKey(leaf('views', 'eq', 1))).not.toBe(whereKey(leaf('views', 'eq', '1')));
  });

  it('keys record reads on the id and the record query', () => {
    expect(recordKey('fields=title,status')).toBe(recordKey('fields=status,title'));
    expect(recordKey('')).not.toBe(recordKey('', 'b'.repeat(24)));
    expect(recordKey('')).not.toBe(recordKey('include=author'));
    expect(recordKey('')).not.toBe(listKey(''));
  });

  it('is a pure function of the query: the same object twice, and a deep copy, give one key', () => {
    const query = parseListQuery(parseQs('where[views][gt]=5&sort=-views'), posts, registry, OPTIONS);
    expect(queryKey(query)).toBe(queryKey(query));
    expect(queryKey({ ...query, sort: [...query.sort] })).toBe(queryKey(query));
  });
});

describe('mongoFilterKey', () => {
  const a = new Types.ObjectId();
  const b = new Types.ObjectId();

  it.each([
    ['field order', { status: { $eq: 'draft' }, views: { $gt: 5 } }, { views: { $gt: 5 }, status: { $eq: 'draft' } }],
    ['operator order', { views: { $gte: 1, $lte: 9 } }, { views: { $lte: 9, $gte: 1 } }],
    ['$and member order', { $and: [{ x: { $eq: 1 } }, { y: { $eq: 2 } }] }, { $and: [{ y: { $eq: 2 } }, { x: { $eq: 1 } }] }],
    ['$in value order', { _id: { $in: [a, b] } }, { _id: { $in: [b, a] } }],
    ['an ObjectId made afresh', { owner: a }, { owner: new Types.ObjectId(a.toHexString()) }],
    ['a Date made afresh', { at: { $lt: new Date(5) } }, { at: { $lt: new Date(5) } }],
  ])('is the same across %s', (_name, x, y) => {
    expect(mongoFilterKey(x)).toBe(mongoFilterKey(y));
  });

  it.each([
    ['a different value', { views: { $gt: 5 } }, { views: { $gt: 6 } }],
    ['a number vs a string', { views: { $eq: 5 } }, { views: { $eq: '5' } }],
    ['an ObjectId vs its hex', { owner: a }, { owner: a.toHexString() }],
    ['a different id', { owner: a }, { owner: b }],
    ['and vs or', { $and: [{ x: 1 }, { y: 2 }] }, { $or: [{ x: 1 }, { y: 2 }] }],
    ['the soft-delete scope', { deletedAt: null }, { deletedAt: { $ne: null } }],
    ['the empty filter vs a condition', {}, { deletedAt: null }],
    ['a regex and its flags', { title: /ab/i }, { title: /ab/ }],
    ['the order of an $eq array (array equality is ordered)', { tags: { $eq: ['a', 'b'] } }, { tags: { $eq: ['b', 'a'] } }],
    ['the key order of an embedded document (compared as a whole)', { meta: { a: 1, b: 2 } }, { meta: { b: 2, a: 1 } }],
    ['$elemMatch ranges', { n: { $elemMatch: { $gte: 1, $lte: 2 } } }, { n: { $elemMatch: { $gte: 1, $lte: 3 } } }],
  ])('differs for %s', (_name, x, y) => {
    expect(mongoFilterKey(x as Record<string, unknown>)).not.toBe(mongoFilterKey(y as Record<string, unknown>));
  });
});
