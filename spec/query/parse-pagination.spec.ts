// Page, page size (perPage / limit, default, maxLimit reject or clamp), count and includeDeleted,
// and the envelope rule: cursor, then Form A `limit`, then the configured default.
import { chooseEnvelope, parseLimit, parsePage } from '../../lib/query/parse-pagination';
import { readBooleanParam } from '../../lib/query/read-param';
import { describeCollection } from '../../lib/schema/describe-collection';
import type { QueryOptions } from '../../lib/query/types';
import { OPTIONS, POSTS, describeRejection, expectedRejection, parseQs, posts, rejectionOf } from './fixtures';

const CLAMP: QueryOptions = { ...OPTIONS, overLimit: 'clamp' };
const small = describeCollection({ ...POSTS, pagination: { defaultLimit: 5, maxLimit: 20 } });

describe('parsePage', () => {
  it.each([
    ['', 1],
    ['page=1', 1],
    ['page=7', 7],
    ['page=007', 7],
  ])('%s -> %d', (query, expected) => expect(parsePage(parseQs(query))).toBe(expected));

  it('accepts numbers from the local API', () => expect(parsePage({ page: 3 })).toBe(3));

  it.each([
    ['page=0', '"0" is not an integer >= 1'],
    ['page=-1', '"-1" is not an integer >= 1'],
    ['page=1.5', '"1.5" is not an integer >= 1'],
    ['page=abc', '"abc" is not an integer >= 1'],
    ['page=', '"" is not an integer >= 1'],
    ['page=1e3', '"1e3" is not an integer >= 1'],
    ['page=99999999999999999999', '"99999999999999999999" is not an integer >= 1'],
    ['page[x]=1', '{"x":"1"} is not an integer >= 1'],
  ])('%s is a 400', (query, message) => {
    expect(describeRejection(rejectionOf(() => parsePage(parseQs(query))))).toEqual(expectedRejection('page', message, 'invalid_page'));
  });

  it.each([[0], [-1], [1.5], [NaN], [Infinity]])('%p from the local API is a 400', (page) => {
    expect(rejectionOf(() => parsePage({ page })).errors?.[0].code).toBe('invalid_page');
  });

  it('refuses a repeated page', () => {
    expect(describeRejection(rejectionOf(() => parsePage(parseQs('page=1&page=2'))))).toEqual(
      expectedRejection('page', 'expected a single value', 'invalid_page'),
    );
  });
});

describe('parseLimit', () => {
  it.each([
    ['', 5],
    ['limit=3', 3],
    ['perPage=3', 3],
    ['perPage=20', 20],
    ['limit=50&perPage=4', 4],
  ])('%s -> %d', (query, expected) => expect(parseLimit(parseQs(query), small, OPTIONS)).toBe(expected));

  it('defaults to the collection default (10 unless configured)', () => expect(parseLimit({}, posts, OPTIONS)).toBe(10));
  it('accepts numbers from the local API', () => expect(parseLimit({ limit: 7 }, small, OPTIONS)).toBe(7));

  it.each([
    ['limit=0', 'limit', '"0" is not an integer >= 1', 'invalid_limit'],
    ['perPage=-5', 'perPage', '"-5" is not an integer >= 1', 'invalid_limit'],
    ['limit=2.5', 'limit', '"2.5" is not an integer >= 1', 'invalid_limit'],
    ['perPage=ten', 'perPage', '"ten" is not an integer >= 1', 'invalid_limit'],
    ['limit=21', 'limit', '21 is above the maximum page size of 20', 'limit_exceeded'],
    ['perPage=1000', 'perPage', '1000 is above the maximum page size of 20', 'limit_exceeded'],
    ['limit=1&limit=2', 'limit', 'expected a single value', 'invalid_limit'],
  ])('%s is a 400', (query, path, message, code) => {
    expect(describeRejection(rejectionOf(() => parseLimit(parseQs(query), small, OPTIONS)))).toEqual(
      expectedRejection(path, message, code),
    );
  });

  it('clamps to maxLimit when configured to', () => {
    expect(parseLimit(parseQs('limit=21'), small, CLAMP)).toBe(20);
    expect(parseLimit(parseQs('perPage=1000'), small, CLAMP)).toBe(20);
  });

  it('still rejects 0 and garbage when clamping', () => {
    expect(rejectionOf(() => parseLimit(parseQs('limit=0'), small, CLAMP)).errors?.[0].code).toBe('invalid_limit');
  });
});

describe('readBooleanParam (count, includeDeleted)', () => {
  it.each([
    ['', true],
    ['count=true', true],
    ['count=false', false],
  ])('%s -> %p', (query, expected) => expect(readBooleanParam(parseQs(query), 'count', true)).toBe(expected));

  it.each([[true], [false]])('accepts the boolean %p from the local API', (value) =>
    expect(readBooleanParam({ includeDeleted: value }, 'includeDeleted', !value)).toBe(value),
  );

  it.each([['count=1'], ['count=yes'], ['count='], ['count=TRUE'], ['count=true&count=false']])('%s is a 400', (query) => {
    const error = rejectionOf(() => readBooleanParam(parseQs(query), 'count', true));
    expect(error.errors).toEqual([{ field: 'count', message: expect.any(String), code: 'invalid_boolean' }]);
  });

  it('names the value it refused', () => {
    expect(describeRejection(rejectionOf(() => readBooleanParam(parseQs('includeDeleted=yes'), 'includeDeleted', false)))).toEqual(
      expectedRejection('includeDeleted', '"yes" is not true or false', 'invalid_boolean'),
    );
  });
});

describe('chooseEnvelope', () => {
  it.each<[string, QueryOptions['listFormat'], string]>([
    ['', 'data', 'data'],
    ['', 'docs', 'docs'],
    ['page=2', 'data', 'data'],
    ['perPage=5', 'docs', 'docs'],
    ['perPage=5', 'data', 'data'],
    ['limit=5', 'data', 'docs'],
    ['limit=5&perPage=5', 'data', 'data'],
    ['limit=5&page=2', 'data', 'docs'],
    ['cursor=', 'docs', 'cursor'],
    ['cursor=abc', 'data', 'cursor'],
    ['cursor=&limit=5', 'data', 'cursor'],
    ['cursor=&perPage=5', 'docs', 'cursor'],
  ])('%s with listFormat %s -> %s', (query, listFormat, expected) => {
    expect(chooseEnvelope(parseQs(query), { ...OPTIONS, listFormat })).toBe(expected);
  });

  it('ignores undefined values from the local API', () => {
    expect(chooseEnvelope({ cursor: undefined, limit: undefined }, OPTIONS)).toBe('data');
  });

  it.each([['cursor=&page=1'], ['cursor=abc&page=2']])('%s is a 400', (query) => {
    expect(describeRejection(rejectionOf(() => chooseEnvelope(parseQs(query), OPTIONS)))).toEqual(
      expectedRejection('page', 'cannot be combined with cursor', 'invalid_page'),
    );
  });
});
