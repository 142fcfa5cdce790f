// GET /api/<slug> end to end, filtering: where (URL JSON and bracket form) with all 16 operators on
// every field type, compounds, Form C filter, like semantics, dotted relationship filters (never
// truncated), fields, search, includeDeleted, and every bad input answered 400 problem+json.
// Real database, no mocks; data seeded straight into the collections.
import request from 'supertest';
import { Types } from 'mongoose';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';
import {
  USER_ID,
  expectOkList,
  expectQueryError,
  idsOf,
  qs,
  recordsOf,
  whereJson,
} from '../helpers/list-assertions';

const user = asUser({ id: USER_ID });

let t: TestApp;
/** Every response body this file received: none may carry a hidden value. */
const seen: string[] = [];

const oid = () => new Types.ObjectId();
const ids = {
  acme: oid(),
  globex: oid(),
  ann: oid(),
  bob: oid(),
  cid: oid(),
  news: oid(),
  tech: oid(),
  sports: oid(),
};
/** Post ids by title. */
const P: Record<string, Types.ObjectId> = {};
const LIVE = ['Alpha', 'Beta', 'Gamma', 'delta', 'Epsilon', 'Zeta foo'];
const date = (iso: string) => new Date(iso);

beforeAll(async () => {
  t = await createTestApp({
    collections: [
      { slug: 'companies', fields: { name: { type: 'text' } } },
      {
        slug: 'authors',
        fields: {
          name: { type: 'text' },
          company: { type: 'relationship', relationTo: 'companies' },
          secret: { type: 'text', hidden: true },
        },
      },
      { slug: 'categories', fields: { name: { type: 'text' } } },
      {
        slug: 'posts',
        softDelete: true,
        fields: {
          title: { type: 'text', required: true },
          body: { type: 'textarea' },
          views: { type: 'number' },
          publishedAt: { type: 'date' },
          featured: { type: 'boolean' },
          status: { type: 'select', options: ['draft', 'published', 'archived'] },
          tags: { type: 'array', of: 'text' },
          scores: { type: 'array', of: 'number' },
          labels: { type: 'select', options: ['red', 'blue', 'green'], hasMany: true },
          author: { type: 'relationship', relationTo: 'authors' },
          categories: { type: 'relationship', relationTo: 'categories', hasMany: true },
          meta: { type: 'json' },
          secret: { type: 'text', hidden: true },
        },
      },
      { slug: 'articles', search: ['title'], fields: { title: { type: 'text' }, summary: { type: 'text' } } },
      { slug: 'writers', fields: { name: { type: 'text' }, active: { type: 'boolean' } } },
      {
        slug: 'notes',
        fields: {
          title: { type: 'text' },
          writer: { type: 'relationship', relationTo: 'writers' },
          coauthors: { type: 'relationship', relationTo: 'writers', hasMany: true },
        },
      },
    ],
  });
  const db = t.connection;
  await db.collection('companies').insertMany([
    { _id: ids.acme, name: 'Acme' },
    { _id: ids.globex, name: 'Globex' },
  ]);
  await db.collection('authors').insertMany([
    { _id: ids.ann, name: 'Ann', company: ids.acme, secret: 'SECRET-author-ann' },
    { _id: ids.bob, name: 'Bob', company: ids.globex, secret: 'SECRET-author-bob' },
    { _id: ids.cid, name: 'Cid', company: ids.acme },
  ]);
  await db.collection('categories').insertMany([
    { _id: ids.news, name: 'News' },
    { _id: ids.tech, name: 'Tech' },
    { _id: ids.sports, name: 'Sports' },
  ]);
  const posts = [
    {
      title: 'Alpha',
      body: 'The quick brown fox',
      views: 10,
      publishedAt: date('2024-01-10T00:00:00.000Z'),
      featured: true,
      status: 'published',
      tags: ['news', 'tech'],
      scores: [1, 9],
      labels: ['red', 'blue'],
      author: ids.ann,
      categories: [ids.news, ids.tech],
      meta: { a: 1 },
      secret: 'SECRET-alpha',
    },
    {
      title: 'Beta',
      body: 'abc',
      views: 25,
      publishedAt: date('2024-02-15T00:00:00.000Z'),
      featured: false,
      status: 'draft',
      tags: ['tech'],
      scores: [4],
      labels: ['blue'],
      author: ids.bob,
      categories: [ids.tech],
      secret: 'SECRET-beta',
    },
    {
      title: 'Gamma',
      body: 'a.c and (parens) [x]',
      views: 5,
      publishedAt: date('2024-03-20T12:30:00.000Z'),
      featured: true,
      status: 'archived',
      tags: ['sports', 'news'],
      scores: [],
      labels: ['green'],
      author: ids.cid,
      categories: [ids.sports],
      secret: 'SECRET-gamma',
    },
    {
      title: 'delta',
      body: '100% sure_thing',
      views: 25,
      publishedAt: date('2023-12-31T23:59:59.999Z'),
      featured: false,
      status: 'published',
      tags: [],
      scores: [10],
      labels: [],
      author: ids.ann,
      categories: [],
      secret: 'SECRET-delta',
    },
    // Almost nothing set: missing values for exists/neq/notContains.
    { title: 'Epsilon', body: 'Nothing to see', status: 'draft' },
    {
      title: 'Zeta foo',
      body: 'lorem',
      views: 0,
      publishedAt: date('2024-06-01T00:00:00.000Z'),
      featured: false,
      status: 'draft',
      tags: ['misc'],
      scores: [2],
      labels: ['red'],
      author: ids.bob,
      categories: [ids.news],
    },
    // Soft-deleted: matches plenty of conditions, but must only appear with includeDeleted=true.
    {
      title: 'Ghost',
      body: 'fox ghost',
      views: 99,
      status: 'published',
      featured: true,
      tags: ['news'],
      author: ids.ann,
      categories: [ids.news],
      deletedAt: date('2024-05-05T00:00:00.000Z'),
      secret: 'SECRET-ghost',
    },
  ];
  await db.collection('posts').insertMany(
    posts.map((post) => {
      P[post.title] = oid();
      return { _id: P[post.title], ...post };
    }),
  );
  await db.collection('articles').insertMany([
    { title: 'Widgets', summary: 'all about gadgets' },
    { title: 'Gadgets', summary: 'nothing else' },
    { title: 'Sprockets', summary: 'gadget-free' },
  ]);
});

afterAll(async () => {
  for (const body of seen) expect(body).not.toMatch(/SECRET-/);
  await t.close();
});
afterEach(() => {
  expect(t.hostErrors).toEqual([]);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined();
});

async function get(path: string): Promise<request.Response> {
  const res = await request(t.app).get(path).set(...user);
  seen.push(res.text);
  return res;
}

/** GET /api/posts?<query>, sorted by title (so the expected order is known), all on one page. */
function listPosts(query: string): Promise<request.Response> {
  return get(`/api/posts?sort=title&perPage=100${query ? `&${query}` : ''}`);
}

/** Byte order, as MongoDB compares strings by default. */
function byTitle(titles: readonly string[]): string[] {
  return [...titles].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The response lists exactly these posts (by title), in title order, with the right ids. */
function expectPosts(res: request.Response, titles: readonly string[]): void {
  expectOkList(res);
  const expected = byTitle(titles);
  expect(recordsOf(res).map((record) => record.title)).toEqual(expected);
  expect(idsOf(res)).toEqual(expected.map((title) => P[title].toHexString()));
  expect(res.body.meta).toEqual({ total: expected.length, page: 1, perPage: 100, totalPages: expected.length ? 1 : 0 });
}

/** A query string, or a function building one once the seeded ids exist. */
type Query = string | (() => string);
const resolve = (query: Query) => (typeof query === 'function' ? query() : query);

const without = (...titles: string[]) => LIVE.filter((title) => !titles.includes(title));
const hex = (id: Types.ObjectId) => id.toHexString();

describe('where: operators on every field type (bracket form)', () => {
  it('lists every live post without a where, and 401s without a user', async () => {
    expectPosts(await listPosts(''), LIVE);
    const anonymous = await request(t.app).get('/api/posts');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  it.each<[string, Query, string[]]>([
    // text
    ['text eq (exact, case-sensitive)', qs(['where[title][eq]', 'Beta']), ['Beta']],
    ['text eq is not case-insensitive', qs(['where[title][eq]', 'beta']), []],
    ['text bare value = eq', qs(['where[title]', 'Gamma']), ['Gamma']],
    ['text neq', qs(['where[title][neq]', 'Beta']), without('Beta')],
    ['text gt (byte order)', qs(['where[title][gt]', 'E']), ['Epsilon', 'Gamma', 'Zeta foo', 'delta']],
    ['text lte', qs(['where[title][lte]', 'Beta']), ['Alpha', 'Beta']],
    ['text in (comma list)', qs(['where[title][in]', 'Alpha,Gamma']), ['Alpha', 'Gamma']],
    ['text in (repeated [])', 'where[title][in][]=Alpha&where[title][in][]=Gamma', ['Alpha', 'Gamma']],
    ['text in (JSON array, value with a comma)', qs(['where[title][in]', '["Zeta foo","a,b"]']), ['Zeta foo']],
    ['text nin', qs(['where[title][nin]', 'Alpha,Gamma']), without('Alpha', 'Gamma')],
    ['text like substring, any case', qs(['where[title][like]', 'TA']), ['Beta', 'Zeta foo', 'delta']],
    ['text nlike pattern', qs(['where[title][nlike]', '%a']), ['Epsilon', 'Zeta foo']],
    ['text contains (substring, any case)', qs(['where[title][contains]', 'ET']), ['Beta', 'Zeta foo']],
    ['text notContains', qs(['where[title][notContains]', 'a']), ['Epsilon']],
    ['text exists true', qs(['where[body][exists]', 'true']), LIVE],
    // number
    ['number eq (cast from text)', qs(['where[views][eq]', '25']), ['Beta', 'delta']],
    ['number bare value', qs(['where[views]', '25']), ['Beta', 'delta']],
    ['number neq (missing values included)', qs(['where[views][neq]', '25']), ['Alpha', 'Epsilon', 'Gamma', 'Zeta foo']],
    ['number gt', qs(['where[views][gt]', '10']), ['Beta', 'delta']],
    ['number gte', qs(['where[views][gte]', '10']), ['Alpha', 'Beta', 'delta']],
    ['number lt', qs(['where[views][lt]', '10']), ['Gamma', 'Zeta foo']],
    ['number lte (decimal)', qs(['where[views][lte]', '5.0']), ['Gamma', 'Zeta foo']],
    ['number gte + lte on one field', 'where[views][gte]=5&where[views][lte]=10', ['Alpha', 'Gamma']],
    ['number in', qs(['where[views][in]', '0,5']), ['Gamma', 'Zeta foo']],
    ['number nin', qs(['where[views][nin]', '0,5']), ['Alpha', 'Beta', 'Epsilon', 'delta']],
    ['number exists false', qs(['where[views][exists]', 'false']), ['Epsilon']],
    ['number exists true', qs(['where[views][exists]', 'true']), without('Epsilon')],
    ['number between (inclusive)', qs(['where[views][between]', '5,10']), ['Alpha', 'Gamma']],
    ['number between as []', 'where[views][between][]=25&where[views][between][]=25', ['Beta', 'delta']],
    // date
    ['date gt', qs(['where[publishedAt][gt]', '2024-01-31']), ['Beta', 'Gamma', 'Zeta foo']],
    ['date lt', qs(['where[publishedAt][lt]', '2024-01-01T00:00:00Z']), ['delta']],
    ['date lte (inclusive, ms precision)', qs(['where[publishedAt][lte]', '2023-12-31T23:59:59.999Z']), ['delta']],
    ['date eq with offset', qs(['where[publishedAt][eq]', '2024-03-20T14:30:00+02:00']), ['Gamma']],
    ['date eq with an unencoded + (read as a space)', 'where[publishedAt][eq]=2024-03-20T14:30:00+02:00', ['Gamma']],
    ['date gte epoch ms', qs(['where[publishedAt][gte]', String(Date.UTC(2024, 5, 1))]), ['Zeta foo']],
    ['date between', qs(['where[publishedAt][between]', '2024-01-01,2024-02-28']), ['Alpha', 'Beta']],
    ['date exists false', qs(['where[publishedAt][exists]', 'false']), ['Epsilon']],
    // boolean
    ['boolean eq true', qs(['where[featured][eq]', 'true']), ['Alpha', 'Gamma']],
    ['boolean bare false', qs(['where[featured]', 'false']), ['Beta', 'Zeta foo', 'delta']],
    ['boolean eq 1', qs(['where[featured][eq]', '1']), ['Alpha', 'Gamma']],
    ['boolean neq true (missing included)', qs(['where[featured][neq]', 'true']), ['Beta', 'Epsilon', 'Zeta foo', 'delta']],
    ['boolean in', qs(['where[featured][in]', 'true']), ['Alpha', 'Gamma']],
    ['boolean exists false', qs(['where[featured][exists]', 'false']), ['Epsilon']],
    // select
    ['select eq', qs(['where[status][eq]', 'published']), ['Alpha', 'delta']],
    ['select neq', qs(['where[status][neq]', 'draft']), ['Alpha', 'Gamma', 'delta']],
    ['select in', qs(['where[status][in]', 'draft,archived']), ['Beta', 'Epsilon', 'Gamma', 'Zeta foo']],
    ['select nin', qs(['where[status][nin]', 'draft,archived']), ['Alpha', 'delta']],
    ['select like', qs(['where[status][like]', 'PUB']), ['Alpha', 'delta']],
    // array of text
    ['array eq matches an element', qs(['where[tags][eq]', 'tech']), ['Alpha', 'Beta']],
    ['array contains', qs(['where[tags][contains]', 'news']), ['Alpha', 'Gamma']],
    ['array contains is exact per element', qs(['where[tags][contains]', 'new']), []],
    ['array notContains (missing included)', qs(['where[tags][notContains]', 'tech']), ['Epsilon', 'Gamma', 'Zeta foo', 'delta']],
    ['array any', qs(['where[tags][any]', 'sports,misc']), ['Gamma', 'Zeta foo']],
    ['array all', qs(['where[tags][all]', 'news,tech']), ['Alpha']],
    ['array in', qs(['where[tags][in]', 'misc,nothing']), ['Zeta foo']],
    ['array nin', qs(['where[tags][nin]', 'news,misc']), ['Beta', 'Epsilon', 'delta']],
    ['array like (an element)', qs(['where[tags][like]', 'SPO']), ['Gamma']],
    ['array exists false (empty array is not missing)', qs(['where[tags][exists]', 'false']), ['Epsilon']],
    // array of number
    ['number array contains', qs(['where[scores][contains]', '9']), ['Alpha']],
    ['number array gt (any element)', qs(['where[scores][gt]', '9']), ['delta']],
    ['number array between needs one element in range', qs(['where[scores][between]', '3,5']), ['Beta']],
    ['number array all', qs(['where[scores][all]', '1,9']), ['Alpha']],
    // select hasMany
    ['hasMany select contains', qs(['where[labels][contains]', 'blue']), ['Alpha', 'Beta']],
    ['hasMany select any', qs(['where[labels][any]', 'green,red']), ['Alpha', 'Gamma', 'Zeta foo']],
    ['hasMany select all', qs(['where[labels][all]', 'red,blue']), ['Alpha']],
    ['hasMany select notContains', qs(['where[labels][notContains]', 'red']), ['Beta', 'Epsilon', 'Gamma', 'delta']],
    // relationship
    ['relationship eq', qs(['where[author][eq]', hex(ids.ann)]), ['Alpha', 'delta']],
    ['relationship bare id', qs(['where[author]', hex(ids.cid)]), ['Gamma']],
    ['relationship neq', qs(['where[author][neq]', hex(ids.ann)]), ['Beta', 'Epsilon', 'Gamma', 'Zeta foo']],
    ['relationship in', qs(['where[author][in]', `${hex(ids.ann)},${hex(ids.bob)}`]), ['Alpha', 'Beta', 'Zeta foo', 'delta']],
    ['relationship nin', qs(['where[author][nin]', `${hex(ids.ann)},${hex(ids.bob)}`]), ['Epsilon', 'Gamma']],
    ['relationship exists false', qs(['where[author][exists]', 'false']), ['Epsilon']],
    // hasMany relationship
    ['hasMany relationship contains', qs(['where[categories][contains]', hex(ids.news)]), ['Alpha', 'Zeta foo']],
    ['hasMany relationship eq (an element)', qs(['where[categories][eq]', hex(ids.tech)]), ['Alpha', 'Beta']],
    ['hasMany relationship notContains', qs(['where[categories][notContains]', hex(ids.news)]), ['Beta', 'Epsilon', 'Gamma', 'delta']],
    ['hasMany relationship any', qs(['where[categories][any]', `${hex(ids.sports)},${hex(ids.tech)}`]), ['Alpha', 'Beta', 'Gamma']],
    ['hasMany relationship all', qs(['where[categories][all]', `${hex(ids.news)},${hex(ids.tech)}`]), ['Alpha']],
    // id
    ['id eq', () => qs(['where[id][eq]', hex(P.Alpha)]), ['Alpha']],
    ['id neq', () => qs(['where[id][neq]', hex(P.Alpha)]), without('Alpha')],
    ['id in', () => qs(['where[id][in]', `${hex(P.Alpha)},${hex(P.Beta)},${hex(P.Ghost)}`]), ['Alpha', 'Beta']],
    ['id nin', () => qs(['where[id][nin]', `${hex(P.Alpha)},${hex(P.Beta)}`]), without('Alpha', 'Beta')],
    ['id gt (insertion order)', () => qs(['where[id][gt]', hex(P.Gamma)]), ['Epsilon', 'Zeta foo', 'delta']],
    // json
    ['json exists', qs(['where[meta][exists]', 'true']), ['Alpha']],
  ])('%s', async (_name, query, expected) => {
    expectPosts(await listPosts(resolve(query)), expected);
  });

  it('treats every operator in where JSON exactly as in bracket form', async () => {
    const cases: Array<[Record<string, unknown>, string[]]> = [
      [{ title: { eq: 'Beta' } }, ['Beta']],
      [{ title: 'Beta' }, ['Beta']],
      [{ views: 25 }, ['Beta', 'delta']],
      [{ views: { neq: 25 } }, ['Alpha', 'Epsilon', 'Gamma', 'Zeta foo']],
      [{ views: { gt: 5, lte: 25 } }, ['Alpha', 'Beta', 'delta']],
      [{ views: { gte: '10' } }, ['Alpha', 'Beta', 'delta']],
      [{ views: { lt: 5 } }, ['Zeta foo']],
      [{ views: { in: [0, 5] } }, ['Gamma', 'Zeta foo']],
      [{ views: { nin: [0, 5, 25] } }, ['Alpha', 'Epsilon']],
      [{ views: { exists: false } }, ['Epsilon']],
      [{ views: { between: [5, 10] } }, ['Alpha', 'Gamma']],
      [{ featured: true }, ['Alpha', 'Gamma']],
      [{ featured: { eq: false } }, ['Beta', 'Zeta foo', 'delta']],
      [{ publishedAt: { between: ['2024-01-01T00:00:00.000Z', '2024-03-20T12:30:00.000Z'] } }, ['Alpha', 'Beta', 'Gamma']],
      [{ body: { like: '%fox' } }, ['Alpha']],
      [{ body: { nlike: 'a%' } }, ['Alpha', 'Epsilon', 'Zeta foo', 'delta']],
      [{ tags: { contains: 'news' } }, ['Alpha', 'Gamma']],
      [{ tags: { notContains: 'news' } }, ['Beta', 'Epsilon', 'Zeta foo', 'delta']],
      [{ tags: { any: ['sports', 'misc'] } }, ['Gamma', 'Zeta foo']],
      [{ tags: { all: ['news', 'tech'] } }, ['Alpha']],
      [{ categories: { contains: hex(ids.news) } }, ['Alpha', 'Zeta foo']],
      [{ author: { in: [hex(ids.cid)] } }, ['Gamma']],
      [{ id: { eq: hex(P.Beta) } }, ['Beta']],
      [{ status: { eq: null } }, []],
      [{ views: { eq: null } }, ['Epsilon']],
      [{ views: { neq: null } }, without('Epsilon')],
      [{ views: { in: [null, 0] } }, ['Epsilon', 'Zeta foo']],
      [{}, LIVE],
    ];
    for (const [where, expected] of cases) {
      const res = await listPosts(whereJson(where));
      try {
        expectPosts(res, expected);
      } catch (error) {
        throw new Error(`where ${JSON.stringify(where)}: ${(error as Error).message}`);
      }
    }
  });

  it('accepts a field condition given as JSON inside bracket form', async () => {
    expectPosts(await listPosts(qs(['where[views]', '{"gt":20}'])), ['Beta', 'delta']);
    // Text that merely starts with "{" is a plain value compared with eq.
    expectPosts(await listPosts(qs(['where[title]', '{not json'])), []);
  });
});

describe('where: compounds', () => {
  it.each<[string, string, string[]]>([
    ['or (JSON)', whereJson({ or: [{ status: { eq: 'archived' } }, { views: { gt: 20 } }] }), ['Beta', 'Gamma', 'delta']],
    ['and (JSON)', whereJson({ and: [{ featured: { eq: false } }, { views: { gte: 25 } }] }), ['Beta', 'delta']],
    [
      'OR of AND (Form A, JSON)',
      whereJson({ OR: [{ AND: [{ featured: { eq: true } }, { views: { lt: 8 } }] }, { title: { eq: 'Beta' } }] }),
      ['Beta', 'Gamma'],
    ],
    [
      'sibling field ANDed with an or',
      whereJson({ status: { neq: 'archived' }, or: [{ tags: { contains: 'tech' } }, { views: { exists: false } }] }),
      ['Alpha', 'Beta', 'Epsilon'],
    ],
    [
      'and inside or inside and',
      whereJson({
        and: [
          { or: [{ status: 'draft' }, { status: 'published' }] },
          { OR: [{ AND: [{ views: { gte: 10 } }, { featured: false }] }, { title: 'Epsilon' }] },
        ],
      }),
      ['Beta', 'Epsilon', 'delta'],
    ],
    ['empty and matches all', whereJson({ and: [] }), LIVE],
    ['empty or matches nothing', whereJson({ or: [] }), []],
    ['or (bracket)', 'where[or][0][status][eq]=archived&where[or][1][views][gt]=20', ['Beta', 'Gamma', 'delta']],
    [
      'OR of AND (bracket)',
      'where[OR][0][AND][0][featured][eq]=true&where[OR][0][AND][1][views][lt]=8&where[OR][1][title]=Beta',
      ['Beta', 'Gamma'],
    ],
    ['and (bracket) with a sibling field', 'where[and][0][views][gte]=10&where[and][1][featured]=false&where[status]=draft', ['Beta']],
  ])('%s', async (_name, query, expected) => {
    expectPosts(await listPosts(query), expected);
  });
});

describe('like semantics', () => {
  it.each<[string, string, string[]]>([
    ['% anchors: ends with', '%fox', ['Alpha']],
    ['% anchors: starts with, any case', 'the%', ['Alpha']],
    ['% on both sides', '%E%', ['Alpha', 'Epsilon', 'Gamma', 'Zeta foo', 'delta']],
    ['plain text is a substring', 'quick', ['Alpha']],
    ['plain text ignores case', 'QUICK BROWN', ['Alpha']],
    ['anchored text does not match as a substring', '%quick', []],
    ['_ is exactly one character, anchored', 'a_c', ['Beta']],
    ['_ does not match two characters', 'a_bc', []],
    ['% then literal text with _', '%sure_thing', ['delta']],
    ['a trailing % after digits', '100%', ['delta']],
    ['. is literal, not any character', 'a.c', ['Gamma']],
    ['( is literal and does not 500', '(', ['Gamma']],
    ['[x] is literal', '[x]', ['Gamma']],
    ['.* is literal', '.*', []],
    ['^ is literal', '^a', []],
    ['$ is literal', 'abc$', []],
    ['| is literal', 'abc|lorem', []],
    ['backslash is literal', '\\', []],
    ['+ and ? are literal', 'a+?', []],
    ['{ } are literal', 'o{2}', []],
  ])('like %s (%s)', async (_name, pattern, expected) => {
    expectPosts(await listPosts(qs(['where[body][like]', pattern])), expected);
  });

  it('nlike is the exact complement of like (over present values)', async () => {
    for (const pattern of ['%fox', 'a.c', 'a_c', 'QUICK', '(']) {
      const like = idsOf(await listPosts(qs(['where[body][like]', pattern])));
      const nlike = idsOf(await listPosts(qs(['where[body][nlike]', pattern])));
      expect([...like, ...nlike].sort()).toEqual(LIVE.map((title) => hex(P[title])).sort());
      expect(like.filter((id) => nlike.includes(id))).toEqual([]);
    }
  });

  it('contains on text is a substring with metacharacters escaped too', async () => {
    expectPosts(await listPosts(qs(['where[body][contains]', '(PARENS)'])), ['Gamma']);
    expectPosts(await listPosts(qs(['where[body][contains]', 'a%'])), []);
    expectPosts(await listPosts(qs(['where[body][contains]', '0%'])), ['delta']);
  });
});

describe('Form C filter', () => {
  it.each<[string, Query, string[]]>([
    ['field:>value', qs(['filter', 'views:>10']), ['Beta', 'delta']],
    ['field:value (equals)', qs(['filter', 'status:published']), ['Alpha', 'delta']],
    ['>=', qs(['filter', 'views:>=10']), ['Alpha', 'Beta', 'delta']],
    ['<', qs(['filter', 'views:<10']), ['Gamma', 'Zeta foo']],
    ['<=', qs(['filter', 'views:<=10']), ['Alpha', 'Gamma', 'Zeta foo']],
    ['!=', qs(['filter', 'status:!=draft']), ['Alpha', 'Gamma', 'delta']],
    ['repeatable, ANDed', qs(['filter', 'status:published'], ['filter', 'views:>=25']), ['delta']],
    ['repeatable as filter[]', 'filter[]=status:draft&filter[]=views:>0', ['Beta']],
    ['a value containing colons', qs(['filter', 'publishedAt:>2024-03-01T00:00:00Z']), ['Gamma', 'Zeta foo']],
    ['boolean value', qs(['filter', 'featured:true']), ['Alpha', 'Gamma']],
    ['id value', () => qs(['filter', `author:${hex(ids.bob)}`]), ['Beta', 'Zeta foo']],
    ['dotted relationship path', qs(['filter', 'author.name:Ann']), ['Alpha', 'delta']],
    ['ANDed with where', `${qs(['filter', 'featured:true'])}&where[views][lt]=8`, ['Gamma']],
    ['ANDed with where JSON', `${qs(['filter', 'views:>=10'])}&${whereJson({ or: [{ featured: true }, { title: 'delta' }] })}`, ['Alpha', 'delta']],
    ['empty filter is no constraint', 'filter=', LIVE],
  ])('%s', async (_name, query, expected) => {
    expectPosts(await listPosts(resolve(query)), expected);
  });

  it('rejects a malformed item or a value that does not cast', async () => {
    expectQueryError(await listPosts(qs(['filter', 'views'])), 'filter', 'invalid_filter');
    expectQueryError(await listPosts(qs(['filter', ':5'])), 'filter', 'invalid_filter');
    expectQueryError(await listPosts(qs(['filter', 'views:>abc'])), 'filter.views.gt', 'invalid_type', /"abc" is not a number/);
    expectQueryError(
      await listPosts(qs(['filter', 'status:draft'], ['filter', 'nope:1'])),
      'filter.1.nope',
      'unknown_field',
    );
    expectQueryError(await listPosts(qs(['filter', 'featured:>1'])), 'filter.featured.gt', 'invalid_operator');
  });
});

describe('dotted relationship filters', () => {
  it.each<[string, string, string[]]>([
    ['author.name eq (bracket)', qs(['where[author.name][eq]', 'Ann']), ['Alpha', 'delta']],
    ['author.name like', qs(['where[author.name][like]', 'B']), ['Beta', 'Zeta foo']],
    ['author.name bare value', qs(['where[author.name]', 'Cid']), ['Gamma']],
    ['author.name with no match', qs(['where[author.name][eq]', 'Nobody']), []],
    ['through hasMany: categories.name in', qs(['where[categories.name][in]', 'News,Sports']), ['Alpha', 'Gamma', 'Zeta foo']],
    ['through hasMany: categories.name eq', qs(['where[categories.name][eq]', 'Tech']), ['Alpha', 'Beta']],
    ['nested: author.company.name', qs(['where[author.company.name][eq]', 'Acme']), ['Alpha', 'Gamma', 'delta']],
    ['nested in JSON', whereJson({ 'author.company.name': { eq: 'Globex' } }), ['Beta', 'Zeta foo']],
    ['nested id: author.company', qs(['where[author.company][eq]', hex(ids.globex)]), ['Beta', 'Zeta foo']],
    [
      'inside or',
      whereJson({ or: [{ 'author.name': { eq: 'Cid' } }, { 'categories.name': { eq: 'Tech' } }] }),
      ['Alpha', 'Beta', 'Gamma'],
    ],
    [
      'ANDed with a plain condition',
      whereJson({ 'author.name': 'Ann', views: { gt: 10 } }),
      ['delta'],
    ],
    ['negated through the relation', qs(['where[author.name][neq]', 'Ann']), ['Beta', 'Gamma', 'Zeta foo']],
  ])('%s', async (_name, query, expected) => {
    expectPosts(await listPosts(query), expected);
  });

  it('is never truncated: 150 related matches give all 150 records (single and hasMany)', async () => {
    const writers = Array.from({ length: 180 }, (_, i) => ({
      _id: oid(),
      name: `writer-${String(i).padStart(3, '0')}`,
      active: i < 150,
    }));
    await t.connection.collection('writers').insertMany(writers);
    const notes = writers.map((writer, i) => ({
      _id: oid(),
      title: `note-${String(i).padStart(3, '0')}`,
      writer: writer._id,
      coauthors: [writers[(i + 1) % writers.length]._id, writer._id],
    }));
    await t.connection.collection('notes').insertMany(notes);
    const activeNotes = notes.filter((_, i) => i < 150).map((note) => hex(note._id));

    for (const where of ['where[writer.active][eq]=true', 'where[coauthors.active][eq]=true&where[writer.active]=true']) {
      const first = await get(`/api/notes?${where}&sort=title&perPage=100&page=1`);
      const second = await get(`/api/notes?${where}&sort=title&perPage=100&page=2`);
      expectOkList(first);
      expectOkList(second);
      expect(first.body.meta).toEqual({ total: 150, page: 1, perPage: 100, totalPages: 2 });
      expect(second.body.meta).toEqual({ total: 150, page: 2, perPage: 100, totalPages: 2 });
      expect([...idsOf(first), ...idsOf(second)]).toEqual(activeNotes);
    }

    // Through hasMany alone: any coauthor active. Notes 0..148 have two active coauthors; 149 has
    // writer 150 (inactive) and itself (active); 179 has writer 0 (active). 151 of 180 in all.
    const hasMany = await get('/api/notes?where[coauthors.active][eq]=true&perPage=100&count=true');
    expect(hasMany.body.meta.total).toBe(151);
    const inactive = await get('/api/notes?where[writer.active][eq]=false&perPage=100');
    expect(inactive.body.meta.total).toBe(30);
  });
});

describe('fields, search, includeDeleted', () => {
  it('fields=title,views returns only id and those fields', async () => {
    const res = await listPosts('fields=title,views');
    expectOkList(res);
    const records = recordsOf(res);
    expect(records.map((record) => record.title)).toEqual(byTitle(LIVE));
    for (const record of records) expect(Object.keys(record)).toEqual(['id', 'title', 'views']);
    // Epsilon has no views: a selected field without a value reads as null.
    expect(records.find((record) => record.title === 'Epsilon')?.views).toBeNull();
    expect(records.find((record) => record.title === 'Beta')).toEqual({ id: hex(P.Beta), title: 'Beta', views: 25 });
  });

  it('fields=id returns only ids; fields given as a list or repeated work alike', async () => {
    const onlyId = recordsOf(await listPosts('fields=id'));
    expect(onlyId).toEqual(byTitle(LIVE).map((title) => ({ id: hex(P[title]) })));
    const repeated = recordsOf(await listPosts('fields=tags&fields=author'));
    expect(repeated.find((record) => record.id === hex(P.Alpha))).toEqual({
      id: hex(P.Alpha),
      tags: ['news', 'tech'],
      author: hex(ids.ann),
    });
  });

  it('search matches the text fields (default), case-insensitively, metacharacters literal', async () => {
    expectPosts(await listPosts('search=FOX'), ['Alpha']);
    expectPosts(await listPosts('search=foo'), ['Zeta foo']);
    expectPosts(await listPosts(qs(['search', 'a.c'])), ['Gamma']);
    expectPosts(await listPosts(qs(['search', '0%'])), ['delta']);
    expectPosts(await listPosts(qs(['search', '%'])), ['delta']);
    expectPosts(await listPosts(qs(['search', '(parens'])), ['Gamma']);
    expectPosts(await listPosts(qs(['search', '   '])), LIVE);
    // Hidden fields are never searched.
    expectPosts(await listPosts('search=SECRET'), []);
    // Select values are not text fields.
    expectPosts(await listPosts('search=published'), []);
  });

  it('search is ANDed with where and filter', async () => {
    expectPosts(await listPosts('search=a&where[featured]=true'), ['Alpha', 'Gamma']);
    expectPosts(await listPosts(`search=e&${qs(['filter', 'views:>=10'])}`), ['Alpha', 'Beta', 'delta']);
  });

  it('search uses the configured search fields only', async () => {
    const res = await get('/api/articles?search=GADGET&sort=title');
    expectOkList(res);
    expect(recordsOf(res).map((record) => record.title)).toEqual(['Gadgets']);
    const none = await get('/api/articles?search=about&sort=title');
    expect(recordsOf(none)).toEqual([]);
  });

  it('includeDeleted=true includes soft-deleted records; false or absent excludes them', async () => {
    expectPosts(await listPosts('includeDeleted=true'), [...LIVE, 'Ghost']);
    expectPosts(await listPosts('includeDeleted=false'), LIVE);
    expectPosts(await listPosts('where[views][gt]=50'), []);
    expectPosts(await listPosts('where[views][gt]=50&includeDeleted=true'), ['Ghost']);
    expectPosts(await listPosts('search=ghost&includeDeleted=true'), ['Ghost']);
    const ghost = recordsOf(await listPosts('where[views][gt]=50&includeDeleted=true'))[0];
    expect(ghost.deletedAt).toBe('2024-05-05T00:00:00.000Z');
    expect(ghost).not.toHaveProperty('secret');
    expectQueryError(await listPosts('includeDeleted=yes'), 'includeDeleted', 'invalid_boolean');
  });

  it('GET /:id of a soft-deleted record is 404 unless includeDeleted=true', async () => {
    expect((await get(`/api/posts/${hex(P.Ghost)}`)).status).toBe(404);
    const res = await get(`/api/posts/${hex(P.Ghost)}?includeDeleted=true&fields=title`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: hex(P.Ghost), title: 'Ghost' });
  });
});

describe('hidden fields do not exist for clients', () => {
  /** Two responses identical once the field name is swapped: a hidden field answers like a missing one. */
  function expectSameAsUnknown(hidden: request.Response, unknown: request.Response, name: string): void {
    expect(hidden.status).toBe(400);
    expect(hidden.headers['content-type']).toBe(unknown.headers['content-type']);
    expect(hidden.text.split(name).join('nonexistent')).toBe(unknown.text);
  }

  it.each<[string, (name: string) => string, string, string]>([
    ['where (bracket)', (name) => qs([`where[${name}][eq]`, 'SECRET-alpha']), 'where.NAME', 'unknown_field'],
    ['where (bare)', (name) => qs([`where[${name}]`, 'SECRET-alpha']), 'where.NAME', 'unknown_field'],
    ['where (JSON exists)', (name) => whereJson({ [name]: { exists: true } }), 'where.NAME', 'unknown_field'],
    ['where (JSON like)', (name) => whereJson({ [name]: { like: 'SECRET%' } }), 'where.NAME', 'unknown_field'],
    ['where inside or', (name) => whereJson({ or: [{ title: 'x' }, { [name]: 'SECRET-alpha' }] }), 'where.or.1.NAME', 'unknown_field'],
    ['where through a relation', (name) => qs([`where[author.${name}][eq]`, 'SECRET-author-ann']), 'where.author.NAME', 'unknown_field'],
    ['filter', (name) => qs(['filter', `${name}:SECRET-alpha`]), 'filter.NAME', 'unknown_field'],
    ['filter greater-than', (name) => qs(['filter', `${name}:>S`]), 'filter.NAME', 'unknown_field'],
    ['sort', (name) => `sort=${name}`, 'sort', 'invalid_sort'],
    ['sort descending', (name) => `sort=-${name}`, 'sort', 'invalid_sort'],
    ['sort with direction', (name) => `sort=title:asc,${name}:desc`, 'sort', 'invalid_sort'],
    ['fields', (name) => `fields=title,${name}`, 'fields', 'invalid_fields'],
  ])('%s on a hidden field answers exactly like an unknown field', async (_name, build, field, code) => {
    const hidden = await get(`/api/posts?${build('secret')}`);
    const unknown = await get(`/api/posts?${build('nonexistent')}`);
    expectQueryError(unknown, field.replace('NAME', 'nonexistent'), code);
    expectQueryError(hidden, field.replace('NAME', 'secret'), code);
    expectSameAsUnknown(hidden, unknown, 'secret');
  });

  it('GET /:id with fields naming a hidden field answers like an unknown field', async () => {
    const hidden = await get(`/api/posts/${hex(P.Alpha)}?fields=secret`);
    const unknown = await get(`/api/posts/${hex(P.Alpha)}?fields=nonexistent`);
    expectQueryError(hidden, 'fields', 'invalid_fields');
    expectSameAsUnknown(hidden, unknown, 'secret');
  });

  it('never returns the hidden value, whatever is asked', async () => {
    for (const query of ['', 'includeDeleted=true', 'fields=title', 'search=SECRET', 'depth=1', 'where[author.name]=Ann']) {
      const res = await listPosts(query);
      expectOkList(res);
      expect(res.text).not.toContain('SECRET');
      for (const record of recordsOf(res)) expect(record).not.toHaveProperty('secret');
    }
    const one = await get(`/api/posts/${hex(P.Alpha)}?depth=2`);
    expect(one.status).toBe(200);
    expect(one.text).not.toContain('SECRET');
    expect(one.body.author).toEqual({ id: hex(ids.ann), name: 'Ann', company: { id: hex(ids.acme), name: 'Acme', createdAt: null, updatedAt: null }, createdAt: null, updatedAt: null });
  });
});

describe('bad input: 400 problem+json naming the problem', () => {
  it.each<[string, string, string, string, RegExp?]>([
    ['malformed where JSON', 'where=%7B%22title%22%3A', 'where', 'malformed_json', /malformed JSON/],
    ['where JSON that is not an object', whereJson([1, 2]), 'where', 'invalid_where'],
    ['where JSON that is a number', 'where=5', 'where', 'invalid_where'],
    ['unknown operator (bracket)', 'where[title][regex]=x', 'where.title.regex', 'unknown_operator', /unknown operator "regex"/],
    ['unknown operator (JSON)', whereJson({ title: { startsWith: 'A' } }), 'where.title.startsWith', 'unknown_operator'],
    ['empty operator object', whereJson({ title: {} }), 'where.title', 'invalid_where'],
    ['bare array value', whereJson({ title: ['a', 'b'] }), 'where.title', 'invalid_value'],
    ['compound that is not a list', whereJson({ or: { title: 'x' } }), 'where.or', 'invalid_where'],
    ['compound item that is not an object', whereJson({ or: ['x'] }), 'where.or.0', 'invalid_where'],
    // $-keys, at every depth and in both forms
    ['$where at the top (JSON)', whereJson({ $where: 'sleep(1000)' }), 'where.$where', 'forbidden_key', /"\$"/],
    ['$regex inside a field (JSON)', whereJson({ title: { $regex: '.*' } }), 'where.title.$regex', 'forbidden_key'],
    ['$ne inside a field (JSON)', whereJson({ title: { $ne: null } }), 'where.title.$ne', 'forbidden_key'],
    ['$expr inside an or array (JSON)', whereJson({ or: [{ $expr: { $gt: ['$views', 1] } }] }), 'where.or.0.$expr', 'forbidden_key'],
    ['$ne as a value object (JSON)', whereJson({ title: { eq: { $ne: null } } }), 'where.title.eq.$ne', 'forbidden_key'],
    ['$gt inside an in-list value (JSON)', whereJson({ views: { in: [{ $gt: 0 }] } }), 'where.views.in.0.$gt', 'forbidden_key'],
    ['$where at the top (bracket)', 'where[$where]=1', 'where.$where', 'forbidden_key'],
    ['$ne inside a field (bracket)', 'where[title][$ne]=x', 'where.title.$ne', 'forbidden_key'],
    ['$expr inside an or array (bracket)', 'where[or][0][$expr]=1', 'where.or.0.$expr', 'forbidden_key'],
    ['$ne as a value object (bracket)', 'where[title][eq][$ne]=x', 'where.title.eq.$ne', 'forbidden_key'],
    ['$gt in a JSON field condition (bracket)', qs(['where[views]', '{"$gt":0}']), 'where.views.$gt', 'forbidden_key'],
    ['$in in a JSON list value', qs(['where[views][in]', '[{"$gt":0}]']), 'where.views.in.0.$gt', 'forbidden_key'],
    // prototype keys
    ['__proto__ (JSON)', 'where=%7B%22__proto__%22%3A%7B%22polluted%22%3Atrue%7D%7D', 'where.__proto__', 'forbidden_key'],
    ['constructor.prototype (JSON)', whereJson({ constructor: { prototype: { polluted: true } } }), 'where.constructor', 'forbidden_key'],
    ['__proto__ in a field (JSON)', 'where=%7B%22title%22%3A%7B%22__proto__%22%3A%7B%22polluted%22%3Atrue%7D%7D%7D', 'where.title.__proto__', 'forbidden_key'],
    ['__proto__ (bracket)', 'where[__proto__][polluted]=true', 'where.__proto__', 'forbidden_key'],
    ['constructor.prototype (bracket)', 'where[constructor][prototype][polluted]=true', 'where.constructor', 'forbidden_key'],
    ['__proto__ in an or (bracket)', 'where[or][0][__proto__][polluted]=true', 'where.or.0.__proto__', 'forbidden_key'],
    ['__proto__ as an operator (bracket)', 'where[title][__proto__][polluted]=true', 'where.title.__proto__', 'forbidden_key'],
    // fields and operators
    ['unknown field', 'where[nope][eq]=1', 'where.nope', 'unknown_field', /unknown field/],
    ['unknown field in JSON or', whereJson({ or: [{ title: 'x' }, { nope: 1 }] }), 'where.or.1.nope', 'unknown_field'],
    ['unknown field through a relation', 'where[author.nope]=1', 'where.author.nope', 'unknown_field'],
    ['dotted path through a non-relation', 'where[title.name]=1', 'where.title.name', 'unknown_field'],
    ['gt on a boolean', 'where[featured][gt]=1', 'where.featured.gt', 'invalid_operator'],
    ['like on a number', 'where[views][like]=1', 'where.views.like', 'invalid_operator'],
    ['between on text', 'where[title][between]=a,b', 'where.title.between', 'invalid_operator'],
    ['any on a scalar field', 'where[title][any]=a,b', 'where.title.any', 'invalid_operator'],
    ['eq on json', 'where[meta][eq]=1', 'where.meta.eq', 'invalid_operator'],
    // values that do not cast
    ['number that is not a number', 'where[views][gt]=abc', 'where.views.gt', 'invalid_type', /"abc" is not a number/],
    ['number in a list', 'where[views][in]=1,x', 'where.views.in.1', 'invalid_type'],
    ['bad date', 'where[publishedAt][gt]=2024-13-45', 'where.publishedAt.gt', 'invalid_date', /is not a date/],
    ['rolled-over date', 'where[publishedAt][eq]=2024-02-30', 'where.publishedAt.eq', 'invalid_date'],
    ['bad ObjectId in a relationship', 'where[author][eq]=bob', 'where.author.eq', 'invalid_id', /is not a valid id/],
    ['bad ObjectId in a hasMany', 'where[categories][contains]=123', 'where.categories.contains', 'invalid_id'],
    ['bad id', 'where[id][in]=abc', 'where.id.in.0', 'invalid_id'],
    ['bad boolean', 'where[featured][eq]=yes', 'where.featured.eq', 'invalid_type'],
    ['bad exists flag', 'where[views][exists]=maybe', 'where.views.exists', 'invalid_value'],
    ['between with one bound', 'where[views][between]=1', 'where.views.between', 'invalid_value', /two values/],
    ['between with three bounds', 'where[views][between]=1,2,3', 'where.views.between', 'invalid_value'],
    ['malformed JSON list', qs(['where[views][in]', '[1,']), 'where.views.in', 'malformed_json'],
    // pagination
    ['page=0', 'page=0', 'page', 'invalid_page'],
    ['page=-1', 'page=-1', 'page', 'invalid_page'],
    ['page=abc', 'page=abc', 'page', 'invalid_page'],
    ['page=1.5', 'page=1.5', 'page', 'invalid_page'],
    ['page repeated', 'page=1&page=2', 'page', 'invalid_page'],
    ['perPage=0', 'perPage=0', 'perPage', 'invalid_limit'],
    ['perPage=-5', 'perPage=-5', 'perPage', 'invalid_limit'],
    ['perPage above max', 'perPage=101', 'perPage', 'limit_exceeded', /maximum page size of 100/],
    ['limit=0', 'limit=0', 'limit', 'invalid_limit'],
    ['limit=-1', 'limit=-1', 'limit', 'invalid_limit'],
    ['limit above max', 'limit=1000', 'limit', 'limit_exceeded'],
    ['cursor with page', 'cursor=&page=1', 'page', 'invalid_page', /cursor/],
    ['count not a boolean', 'count=no', 'count', 'invalid_boolean'],
    // sort
    ['unknown sort field', 'sort=nope', 'sort', 'invalid_sort', /unknown field "nope"/],
    ['bad sort direction', 'sort=title:up', 'sort', 'invalid_sort'],
    ['sort on an array field', 'sort=tags', 'sort', 'invalid_sort'],
    ['sort on json', 'sort=meta', 'sort', 'invalid_sort'],
    ['sort twice on a field', 'sort=title,-title', 'sort', 'duplicate_sort'],
    ['sort mixing - and :asc', 'sort=-title:asc', 'sort', 'invalid_sort'],
    // population, selection, search
    ['depth not a number', 'depth=abc', 'depth', 'invalid_depth'],
    ['depth above the maximum', 'depth=3', 'depth', 'invalid_depth'],
    ['include of a non-relation', 'include=title', 'include', 'invalid_include'],
    ['include of an unknown field', 'include=nope', 'include', 'invalid_include'],
    ['fields with an unknown field', 'fields=title,nope', 'fields', 'invalid_fields'],
    ['search that is not a string', 'search[a]=1', 'search', 'invalid_search'],
    ['search that is too long', `search=${'x'.repeat(201)}`, 'search', 'invalid_search'],
  ])('%s', async (...row) => {
    // Rest parameters: rows differ in length, and a callback longer than its row would be given `done`.
    const [, query, field, code, message] = row;
    const res = await get(`/api/posts?${query}`);
    expectQueryError(res, field, code, message);
  });

  it('leaves no trace on Object.prototype after hostile where keys', async () => {
    await get('/api/posts?where[__proto__][polluted]=yes');
    await get(`/api/posts?${whereJson(JSON.parse('{"__proto__":{"polluted":"yes"}}'))}`);
    await get('/api/posts?where[constructor][prototype][polluted]=yes');
    await get('/api/posts?__proto__[polluted]=yes&constructor[prototype][polluted]=yes');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
  });

  it('answers bad input on GET /:id the same way', async () => {
    expectQueryError(await get(`/api/posts/${hex(P.Alpha)}?depth=9`), 'depth', 'invalid_depth');
    expectQueryError(await get(`/api/posts/${hex(P.Alpha)}?fields=nope`), 'fields', 'invalid_fields');
    expectQueryError(await get(`/api/posts/${hex(P.Alpha)}?include=title`), 'include', 'invalid_include');
  });
});
