// toMongoFilter and mapRelationNodes: the exact Mongo filter of every operator, compounds, constants,
// resolved relation conditions, and the guarantee that no client text becomes a Mongo key.
import { Types } from 'mongoose';
import { QueryError } from '../../lib/errors';
import { hasRelationNodes, mapRelationNodes } from '../../lib/query/map-relation-nodes';
import { parseWhere } from '../../lib/query/parse-where';
import { toMongoFilter } from '../../lib/query/to-mongo-filter';
import type { WhereNode } from '../../lib/query/types';
import { leaf, posts, registry } from './fixtures';

const ID_A = '65a1b2c3d4e5f60718293a4b';
const ID_B = '65a1b2c3d4e5f60718293a4c';
const oid = (hex: string) => new Types.ObjectId(hex);
const mongo = (input: unknown) => toMongoFilter(parseWhere(input, posts, registry));

// [where, expected Mongo filter]
const CASES: Array<[Record<string, unknown>, Record<string, unknown>]> = [
  [{ title: 'a' }, { title: { $eq: 'a' } }],
  [{ id: ID_A }, { _id: { $eq: oid(ID_A) } }],
  [{ publishedAt: { eq: null } }, { publishedAt: { $eq: null } }],
  [{ views: { neq: 5 } }, { views: { $ne: 5 } }],
  [{ views: { neq: null } }, { views: { $ne: null } }],
  [{ views: { gt: '5' } }, { views: { $gt: 5 } }],
  [{ views: { gte: 5 } }, { views: { $gte: 5 } }],
  [{ publishedAt: { lt: '2024-01-01' } }, { publishedAt: { $lt: new Date('2024-01-01T00:00:00Z') } }],
  [{ id: { lte: ID_A } }, { _id: { $lte: oid(ID_A) } }],
  [{ status: { in: 'draft,published' } }, { status: { $in: ['draft', 'published'] } }],
  [{ author: { nin: [ID_A] } }, { author: { $nin: [oid(ID_A)] } }],
  [{ title: { like: 'x.y' } }, { title: /x\.y/i }],
  [{ title: { like: 'x%' } }, { title: /^x[\s\S]*$/i }],
  [{ title: { nlike: 'x_' } }, { title: { $not: /^x[\s\S]$/i } }],
  [{ meta: { exists: true } }, { meta: { $ne: null } }],
  [{ meta: { exists: false } }, { meta: { $eq: null } }],
  [{ tags: { contains: 'a' } }, { tags: { $eq: 'a' } }],
  [{ categories: { contains: ID_A } }, { categories: { $eq: oid(ID_A) } }],
  [{ title: { contains: '(a)' } }, { title: /\(a\)/i }],
  [{ tags: { notContains: 'a' } }, { tags: { $ne: 'a' } }],
  [{ title: { notContains: 'a' } }, { title: { $not: /a/i } }],
  [{ tags: { any: ['a', 'b'] } }, { tags: { $in: ['a', 'b'] } }],
  [{ tags: { all: ['a', 'b'] } }, { tags: { $all: ['a', 'b'] } }],
  [{ views: { between: [1, 9] } }, { views: { $gte: 1, $lte: 9 } }],
  [{ scores: { between: [1, 9] } }, { scores: { $elemMatch: { $gte: 1, $lte: 9 } } }],
  [{ title: 'a', views: { gt: 1, lt: 9 } }, { $and: [{ title: { $eq: 'a' } }, { views: { $gt: 1 } }, { views: { $lt: 9 } }] }],
  [{ or: [{ title: 'a' }, { and: [{ views: 1 }, { published: false }] }] }, { $or: [{ title: { $eq: 'a' } }, { $and: [{ views: { $eq: 1 } }, { published: { $eq: false } }] }] }],
  [{ OR: [] }, { _id: { $exists: false } }],
];

describe('toMongoFilter', () => {
  it.each(CASES)('%j', (input, expected) => expect(mongo(input)).toEqual(expected));

  it('builds real RegExp objects with the i flag, as the field value (not inside $regex: mongo-java-server rejects that)', () => {
    const filter = mongo({ title: { like: 'a%' } }) as { title: RegExp };
    expect(filter.title).toBeInstanceOf(RegExp);
    expect(filter.title.flags).toBe('i');
  });

  it.each<[WhereNode | undefined, Record<string, unknown>]>([
    [undefined, {}],
    [{ kind: 'const', value: true }, {}],
    [{ kind: 'const', value: false }, { _id: { $exists: false } }],
    [{ kind: 'and', nodes: [{ kind: 'const', value: true }, leaf('title', 'eq', 'a')] }, { title: { $eq: 'a' } }],
    [{ kind: 'and', nodes: [{ kind: 'const', value: true }] }, {}],
    [{ kind: 'or', nodes: [{ kind: 'const', value: true }, leaf('title', 'eq', 'a')] }, {}],
    [{ kind: 'or', nodes: [] }, { _id: { $exists: false } }],
    [{ kind: 'ids', field: posts.fields.author, ids: [oid(ID_A)] }, { author: oid(ID_A) }],
    [{ kind: 'ids', field: posts.fields.id, ids: [oid(ID_A), oid(ID_B)] }, { _id: { $in: [oid(ID_A), oid(ID_B)] } }],
    [{ kind: 'ids', field: posts.fields.id, ids: [] }, { _id: { $in: [] } }],
  ])('%j', (node, expected) => expect(toMongoFilter(node)).toEqual(expected));

  it('throws a plain Error on an unresolved relation node', () => {
    const node = parseWhere({ 'author.name': 'Ann' }, posts, registry);
    expect(() => toMongoFilter(node)).toThrow(/"author" through "authors" was not resolved/);
    // A programming error, not a client one: it must not be mapped to a 400.
    expect(() => toMongoFilter(node)).not.toThrow(QueryError);
  });

  it('never turns client text into a key', () => {
    const allowed = new Set(['$and', '$or', '$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin', '$regex', '$not', '$all', '$elemMatch', '$exists', ...Object.keys(posts.fields), '_id']);
    const keys = (value: unknown): string[] =>
      value && typeof value === 'object' && !(value instanceof RegExp) && !(value instanceof Date) && !(value instanceof Types.ObjectId)
        ? Object.entries(value).flatMap(([key, inner]) => [...(Array.isArray(value) ? [] : [key]), ...keys(inner)])
        : [];
    for (const [input] of CASES) for (const key of keys(mongo(input))) expect(allowed).toContain(key);
  });
});

describe('hasRelationNodes', () => {
  it('finds a relation condition at any depth, and none in plain conditions', () => {
    expect(hasRelationNodes(parseWhere({ title: 'a', views: { gt: 1 } }, posts, registry)!)).toBe(false);
    expect(hasRelationNodes(parseWhere({ 'author.name': 'Ann' }, posts, registry)!)).toBe(true);
    expect(hasRelationNodes(parseWhere({ title: 'a', or: [{ views: 1 }, { and: [{ 'categories.name': 'News' }] }] }, posts, registry)!)).toBe(true);
  });
});

describe('mapRelationNodes', () => {
  it('replaces relation nodes (nested in compounds) with what the resolver returns', async () => {
    const node = parseWhere({ title: 'a', or: [{ 'author.name': 'Ann' }, { 'categories.name': 'News' }] }, posts, registry)!;
    const seen: string[] = [];
    const mapped = await mapRelationNodes(node, async (relation) => {
      seen.push(`${relation.field.name}->${relation.relationTo}`);
      expect(relation.where.kind).toBe('field');
      return { kind: 'ids', field: relation.field, ids: [oid(ID_A)] };
    });
    expect(seen.sort()).toEqual(['author->authors', 'categories->categories']);
    expect(toMongoFilter(mapped)).toEqual({
      $and: [{ title: { $eq: 'a' } }, { $or: [{ author: oid(ID_A) }, { categories: oid(ID_A) }] }],
    });
  });

  it('folds constants a resolver returns', async () => {
    const node = parseWhere({ or: [{ 'author.name': 'Ann' }, { title: 'a' }] }, posts, registry)!;
    const mapped = await mapRelationNodes(node, async () => ({ kind: 'const', value: false }));
    expect(mapped).toEqual(leaf('title', 'eq', 'a'));
  });

  it('leaves trees without relation nodes as they are', async () => {
    const node = leaf('title', 'eq', 'a');
    await expect(mapRelationNodes(node, async () => { throw new Error('not called'); })).resolves.toBe(node);
  });

  it('passes nested relation paths to the resolver as a relation inside a relation', async () => {
    const node = parseWhere({ 'author.company.name': 'Acme' }, posts, registry)!;
    const mapped = await mapRelationNodes(node, async (relation) => {
      expect(relation.where).toMatchObject({ kind: 'relation', relationTo: 'companies' });
      return { kind: 'ids', field: relation.field, ids: [] };
    });
    expect(toMongoFilter(mapped)).toEqual({ author: { $in: [] } });
  });
});
