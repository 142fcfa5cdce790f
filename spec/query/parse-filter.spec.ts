// Form C `filter`: the prefix operators, the first-colon split, repetition, and the same casting and
// rejections as a where (operator-by-operator equivalence is covered in parse-where.spec.ts).
import { parseFilter, splitFilterItem } from '../../lib/query/parse-filter';
import { describeRejection, expectedRejection, leaf, parseQs, posts, registry, rejectionOf } from './fixtures';

const filter = (query: string) => parseFilter(parseQs(query).filter, posts, registry);

describe('splitFilterItem', () => {
  it.each([
    ['views:5', { field: 'views', op: 'eq', value: '5' }],
    ['views:>5', { field: 'views', op: 'gt', value: '5' }],
    ['views:>=5', { field: 'views', op: 'gte', value: '5' }],
    ['views:<5', { field: 'views', op: 'lt', value: '5' }],
    ['views:<=5', { field: 'views', op: 'lte', value: '5' }],
    ['views:!=5', { field: 'views', op: 'neq', value: '5' }],
    ['title:', { field: 'title', op: 'eq', value: '' }],
    ['title:=a', { field: 'title', op: 'eq', value: '=a' }],
    ['title:a:b', { field: 'title', op: 'eq', value: 'a:b' }],
    ['publishedAt:>2024-01-01T10:00:00Z', { field: 'publishedAt', op: 'gt', value: '2024-01-01T10:00:00Z' }],
  ])('%s', (item, expected) => expect(splitFilterItem(item, 'filter')).toEqual(expected));
});

describe('parseFilter', () => {
  it('is undefined when absent or blank', () => {
    expect(parseFilter(undefined, posts, registry)).toBeUndefined();
    expect(filter('filter=')).toBeUndefined();
  });

  it('ANDs repeated filters (repeated keys or a qs array)', () => {
    const expected = { kind: 'and', nodes: [leaf('views', 'gt', 5), leaf('status', 'eq', 'draft')] };
    expect(filter('filter=views:>5&filter=status:draft')).toEqual(expected);
    expect(filter('filter[]=views:>5&filter[]=status:draft')).toEqual(expected);
    expect(parseFilter(['views:>5', 'status:draft'], posts, registry)).toEqual(expected);
  });

  it('reads an encoded + in a date offset, and a decoded one (a space)', () => {
    const expected = leaf('publishedAt', 'gte', new Date('2024-01-01T08:00:00Z'));
    expect(filter('filter=publishedAt:>=2024-01-01T10:00:00%2B02:00')).toEqual(expected);
    expect(filter('filter=publishedAt:>=2024-01-01T10:00:00+02:00')).toEqual(expected);
  });

  it.each([
    ['filter=views', 'filter', 'expected "field:value" (or field:>value, >=, <, <=, !=)', 'invalid_filter'],
    ['filter=:5', 'filter', 'expected "field:value" (or field:>value, >=, <, <=, !=)', 'invalid_filter'],
    ['filter=views:>abc', 'filter.views.gt', '"abc" is not a number', 'invalid_type'],
    ['filter=views:', 'filter.views.eq', '"" is not a number', 'invalid_type'],
    ['filter=published:>true', 'filter.published.gt', 'operator "gt" is not valid on a boolean field', 'invalid_operator'],
    ['filter=meta:x', 'filter.meta.eq', 'operator "eq" is not valid on a json field (only "exists" is)', 'invalid_operator'],
    ['filter=secret:x', 'filter.secret', 'unknown field', 'unknown_field'],
    ['filter=nope:x', 'filter.nope', 'unknown field', 'unknown_field'],
    ['filter=$where:x', 'filter.$where', 'unknown field', 'unknown_field'],
    ['filter=__proto__:x', 'filter.__proto__', 'unknown field', 'unknown_field'],
    ['filter=title:a&filter=views:x', 'filter.1.views.eq', '"x" is not a number', 'invalid_type'],
    ['filter[a]=views:1', 'filter', 'expected "field:value" items', 'invalid_filter'],
    ['filter[0][x]=1', 'filter', 'expected "field:value"', 'invalid_filter'],
  ])('%s is a 400', (query, path, message, code) => {
    expect(describeRejection(rejectionOf(() => filter(query)))).toEqual(expectedRejection(path, message, code));
  });
});
