// The relation-condition cost limits, counted on the parsed tree: relation conditions per request
// (where and filter together), hops per path, and the id-limit rejection's shape.
import { QueryTooComplexError } from '../../lib/errors';
import { parseListQuery } from '../../lib/query/parse-list-query';
import { parseWhere } from '../../lib/query/parse-where';
import { assertRelationLimits, listRelationPaths, rejectTooManyRelationIds } from '../../lib/query/relation-limits';
import type { QueryOptions, WhereNode } from '../../lib/query/types';
import { describeCollections } from '../../lib/schema/describe-collection';
import { OPTIONS, parseQs, posts, registry, rejectionOf } from './fixtures';

// A self-relation, so paths can be as long as the parser allows (10 hops).
const people = describeCollections([
  { slug: 'people', fields: { name: { type: 'text' }, friend: { type: 'relationship', relationTo: 'people' } } },
]);
const person = people.get('people')!;
const hops = (count: number) => `${'friend.'.repeat(count)}name`;
const parsePeople = (where: unknown) => parseWhere(where, person, people);
const list = (query: string, options: QueryOptions = OPTIONS) => parseListQuery(parseQs(query), posts, registry, options);

function tooComplex(fn: () => unknown): { message: string; errors: unknown } {
  const error = rejectionOf(fn);
  expect(error).toBeInstanceOf(QueryTooComplexError);
  expect(error).toMatchObject({ status: 400, code: 'query_too_complex', title: 'Query too complex' });
  return { message: error.message, errors: error.errors };
}

describe('listRelationPaths', () => {
  it('finds each dotted path once, with its hops, in tree order', () => {
    const tree = parsePeople({ name: 'x', [hops(1)]: 'a', or: [{ [hops(3)]: 'b' }, { and: [{ [hops(2)]: { like: 'c%' } }] }] });
    expect(listRelationPaths(tree).map((path) => [path.node.path, path.hops])).toEqual([
      ['where.friend.name', 1],
      ['where.or.0.friend.friend.friend.name', 3],
      ['where.or.1.and.0.friend.friend.name', 2],
    ]);
  });

  it('counts a path with several operators as one condition', () => {
    expect(listRelationPaths(parsePeople({ [hops(2)]: { like: 'a%', neq: 'ab' } })).map((path) => path.hops)).toEqual([2]);
  });

  it('finds none in plain conditions, constants or nothing', () => {
    expect(listRelationPaths(parsePeople({ name: 'x' }))).toEqual([]);
    expect(listRelationPaths({ kind: 'const', value: true })).toEqual([]);
    expect(listRelationPaths(undefined)).toEqual([]);
  });
});

describe('assertRelationLimits', () => {
  const limits = { maxRelationConditions: 3, maxRelationDepth: 2, maxRelationIds: 10 };
  const many = (count: number, depth = 1): WhereNode | undefined =>
    parsePeople({ or: Array.from({ length: count }, (_, index) => ({ [hops(depth)]: `v${index}` })) });

  it('accepts up to the limits', () => {
    expect(() => assertRelationLimits([['where', many(3, 2)]], limits)).not.toThrow();
    expect(() => assertRelationLimits([['where', many(2)], ['filter', many(1, 2)]], limits)).not.toThrow();
  });

  it('counts where and filter together and names the parameter that passes the limit', () => {
    expect(tooComplex(() => assertRelationLimits([['where', many(4)]], limits))).toEqual({
      message:
        'where: 4 relation conditions (dotted paths such as author.name); at most 3 relation conditions per request (core.api.maxRelationConditions)',
      errors: [
        {
          field: 'where',
          message: '4 relation conditions (dotted paths such as author.name); at most 3 relation conditions per request (core.api.maxRelationConditions)',
          code: 'query_too_complex',
        },
      ],
    });
    expect(tooComplex(() => assertRelationLimits([['where', many(2)], ['filter', many(2)]], limits)).errors).toEqual([
      expect.objectContaining({ field: 'filter', message: expect.stringMatching(/^4 relation conditions/) }),
    ]);
  });

  it('names the first path over the hop limit', () => {
    const tree = parsePeople({ [hops(1)]: 'a', or: [{ [hops(3)]: 'b' }, { [hops(9)]: 'c' }] });
    expect(tooComplex(() => assertRelationLimits([['where', tree]], limits)).errors).toEqual([
      {
        field: 'where.or.0.friend.friend.friend.name',
        message: 'a relation path of 3 hops; at most 2 hops per path (core.api.maxRelationDepth)',
        code: 'query_too_complex',
      },
    ]);
    expect(tooComplex(() => assertRelationLimits([['where', parsePeople({ [hops(2)]: 'a' })]], { ...limits, maxRelationDepth: 1 })).message).toBe(
      'where.friend.friend.name: a relation path of 2 hops; at most 1 hop per path (core.api.maxRelationDepth)',
    );
  });

  it('with maxRelationConditions 0 refuses every relation condition and nothing else', () => {
    const off = { ...limits, maxRelationConditions: 0 };
    expect(() => assertRelationLimits([['where', parsePeople({ name: 'x' })], ['filter', undefined]], off)).not.toThrow();
    expect(tooComplex(() => assertRelationLimits([['where', many(1)]], off)).message).toMatch(/at most 0 relation conditions per request/);
  });

  it('the 60-condition, 9-hop request is refused on the count', () => {
    expect(tooComplex(() => assertRelationLimits([['where', many(60, 9)]], OPTIONS)).message).toMatch(
      /^where: 60 relation conditions .*at most 10 relation conditions per request \(core\.api\.maxRelationConditions\)$/,
    );
    expect(tooComplex(() => assertRelationLimits([['where', many(1, 9)]], OPTIONS)).message).toMatch(
      /^where\.or\.0\.friend(\.friend){8}\.name: a relation path of 9 hops; at most 3 hops per path/,
    );
  });
});

describe('parseListQuery applies the relation limits', () => {
  it('to where and filter of one request, with the configured numbers', () => {
    const query = 'where[author.name]=a&where[author.company.name]=b&filter=categories.name:c';
    expect(list(query).where).toBeDefined();
    const error = tooComplex(() => list(query, { ...OPTIONS, maxRelationConditions: 2 }));
    expect(error.errors).toEqual([expect.objectContaining({ field: 'filter' })]);
    expect(tooComplex(() => list('where[author.company.name]=b', { ...OPTIONS, maxRelationDepth: 1 })).errors).toEqual([
      expect.objectContaining({ field: 'where.author.company.name' }),
    ]);
  });

  it('does not count the search or plain conditions', () => {
    expect(() => list('where[title]=a&filter=views:>1', { ...OPTIONS, maxRelationConditions: 0 })).not.toThrow();
  });
});

describe('rejectTooManyRelationIds', () => {
  it('names the path, the related collection and the limit, and asks to narrow the filter', () => {
    const relation = parseWhere({ 'author.name': { like: 'a%' } }, posts, registry) as Extract<WhereNode, { kind: 'relation' }>;
    expect(tooComplex(() => rejectTooManyRelationIds(relation, 10_000)).errors).toEqual([
      {
        field: 'where.author.name',
        message:
          'matches more than 10000 records of "authors"; one relation condition may match at most 10000 (core.api.maxRelationIds): narrow the filter',
        code: 'query_too_complex',
      },
    ]);
  });
});
