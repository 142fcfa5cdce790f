// Cost limits on dotted relation filters over HTTP and the local API: relation conditions per request,
// hops per path (both refused before any query runs) and ids per condition, with defaults and configured.
import request from 'supertest';
import { Types } from 'mongoose';
import { type CollectionConfig, QueryTooComplexError } from '../../lib';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';
import { PROBLEM_TYPE, USER_ID, expectOkList, idsOf, whereJson } from '../helpers/list-assertions';

const user = asUser({ id: USER_ID });
const PEOPLE = 2000;
const hops = (count: number) => `${'friend.'.repeat(count)}name`;
const collections: CollectionConfig[] = [
  { slug: 'people', fields: { name: { type: 'text' }, friend: { type: 'relationship', relationTo: 'people' } } },
  { slug: 'posts', fields: { title: { type: 'text' }, author: { type: 'relationship', relationTo: 'people' } } },
];

/** Person i is named `person <i>` and befriends person i-1: a chain through the self-relation. */
async function seed(app: TestApp, count: number): Promise<{ people: Types.ObjectId[]; posts: Types.ObjectId[] }> {
  const people = Array.from({ length: count }, () => new Types.ObjectId());
  await app.connection.collection('people').insertMany(
    people.map((_id, i) => ({ _id, name: `person ${i}`, ...(i > 0 ? { friend: people[i - 1] } : {}) })),
  );
  const posts = people.slice(0, 20).map(() => new Types.ObjectId());
  await app.connection.collection('posts').insertMany(posts.map((_id, i) => ({ _id, title: `post ${i}`, author: people[i] })));
  return { people, posts };
}

/** A 400 problem+json `query_too_complex` whose one error names `field`; returns the message. */
function expectTooComplex(res: request.Response, field: string): string {
  if (res.status !== 400) throw new Error(`expected 400, got ${res.status}: ${res.text.slice(0, 300)}`);
  expect(res.headers['content-type']).toMatch(PROBLEM_TYPE);
  expect(res.body).toEqual({
    type: 'urn:content-router:problem:query_too_complex',
    title: 'Query too complex',
    status: 400,
    code: 'query_too_complex',
    detail: `${field}: ${res.body.errors[0].message}`,
    errors: [{ field, message: expect.any(String), code: 'query_too_complex' }],
  });
  return res.body.errors[0].message as string;
}

describe('with the default limits', () => {
  let t: TestApp;
  let seeded: Awaited<ReturnType<typeof seed>>;

  beforeAll(async () => {
    t = await createTestApp({ collections });
    seeded = await seed(t, PEOPLE);
  });
  afterAll(async () => {
    expect(t.hostErrors).toEqual([]);
    await t.close();
  });

  const list = (query: string) => request(t.app).get(`/api/people?${query}`).set(...user);

  it('refuses 60 nine-hop conditions on a self-relation of 2,000 records with a 400, not 12 s of queries', async () => {
    const query = Array.from({ length: 60 }, (_, i) => `where[or][${i}][${hops(9)}][like]=${encodeURIComponent(`%person ${i}%`)}`).join('&');
    expect(query.length).toBeGreaterThan(6000);
    const res = await list(query);
    expect(expectTooComplex(res, 'where')).toBe(
      '60 relation conditions (dotted paths such as author.name); at most 10 relation conditions per request (core.api.maxRelationConditions)',
    );
  });

  it('allows 10 relation conditions and refuses 11', async () => {
    const conditions = (count: number) => ({ or: Array.from({ length: count }, (_, i) => ({ 'friend.name': `person ${i}` })) });
    const ten = await list(whereJson(conditions(10)));
    expectOkList(ten);
    expect(ten.body.meta.total).toBe(10);
    expect(expectTooComplex(await list(whereJson(conditions(11))), 'where')).toMatch(/^11 relation conditions .*at most 10 /);
  });

  it('counts where and filter together', async () => {
    const where = Array.from({ length: 9 }, (_, i) => `where[or][${i}][friend.name]=x${i}`).join('&');
    expectOkList(await list(`${where}&filter=friend.name:a`));
    expectTooComplex(await list(`${where}&filter=friend.name:a&filter=friend.friend.name:b`), 'filter');
  });

  it('allows 3 hops per path and refuses 4, naming the path', async () => {
    const three = await list(`where[${hops(3)}][eq]=person%20100`);
    expectOkList(three);
    expect(idsOf(three)).toEqual([seeded.people[103].toHexString()]);
    expect(expectTooComplex(await list(`where[${hops(4)}][eq]=person%20100`), `where.${hops(4)}`)).toBe(
      'a relation path of 4 hops; at most 3 hops per path (core.api.maxRelationDepth)',
    );
  });

  it('still answers an ordinary dotted filter, through several relations', async () => {
    const res = await request(t.app).get(`/api/posts?where[author.name][eq]=person%207`).set(...user);
    expectOkList(res);
    expect(idsOf(res)).toEqual([seeded.posts[7].toHexString()]);
    const twoHops = await request(t.app).get(`/api/posts?where[author.friend.name][like]=person%201_`).set(...user);
    expect(idsOf(twoHops).sort()).toEqual(seeded.posts.slice(11, 20).map(String).sort());
  });

  it('matches 2,000 related records under the default 10,000 ids', async () => {
    const res = await list(`where[friend.name][like]=person%25&limit=1`);
    expectOkList(res);
    // `limit` is the Form A dialect: the docs envelope.
    expect(res.body.totalDocs).toBe(PEOPLE - 1);
  });

  it('applies to the local API too', async () => {
    const where = { or: Array.from({ length: 11 }, (_, i) => ({ 'friend.name': `person ${i}` })) };
    await expect(t.api.local.find('people', { where })).rejects.toBeInstanceOf(QueryTooComplexError);
    await expect(t.api.local.find('people', { where: { [hops(4)]: 'x' } })).rejects.toMatchObject({
      status: 400,
      code: 'query_too_complex',
    });
  });
});

describe('with configured limits', () => {
  let t: TestApp;
  let seeded: Awaited<ReturnType<typeof seed>>;

  beforeAll(async () => {
    const guarded: CollectionConfig = {
      // An access rule whose own relation condition matches all 30 people: the host's cost, not bounded.
      slug: 'guarded',
      fields: { title: { type: 'text' }, author: { type: 'relationship', relationTo: 'people' } },
      access: { read: () => ({ 'author.name': { like: 'person%' } }) },
    };
    t = await createTestApp({
      core: { api: { maxRelationConditions: 2, maxRelationDepth: 2, maxRelationIds: 5 } },
      collections: [...collections, guarded],
    });
    seeded = await seed(t, 30);
    await t.connection.collection('guarded').insertMany(seeded.people.map((author, i) => ({ title: `g ${i}`, author })));
  });
  afterAll(async () => {
    expect(t.hostErrors).toEqual([]);
    await t.close();
  });

  const posts = (query: string) => request(t.app).get(`/api/posts?${query}`).set(...user);

  it('answers a relation condition matching exactly maxRelationIds records in full', async () => {
    const res = await posts(whereJson({ 'author.name': { in: ['person 0', 'person 1', 'person 2', 'person 3', 'person 4'] } }));
    expectOkList(res);
    expect(idsOf(res).sort()).toEqual(seeded.posts.slice(0, 5).map(String).sort());
  });

  it('refuses a relation condition matching more than maxRelationIds records, asking to narrow it', async () => {
    const message = expectTooComplex(await posts('where[author.name][like]=person%201%25'), 'where.author.name');
    expect(message).toBe(
      'matches more than 5 records of "people"; one relation condition may match at most 5 (core.api.maxRelationIds): narrow the filter',
    );
    // On an inner hop: `friend.name` matches persons 10-19 before the outer hop narrows anything.
    expect(expectTooComplex(await posts('where[author.friend.name][like]=person%201_'), 'where.author.friend.name')).toMatch(
      /^matches more than 5 records of "people"/,
    );
    // In a Form C filter, named by its item.
    expectTooComplex(await posts('filter=author.name:>person%201'), 'filter.author.name');
  });

  it('applies the configured count and depth', async () => {
    expectOkList(await posts('where[author.name]=person%201&where[author.friend.name]=person%200'));
    expect(expectTooComplex(await posts('where[author.name]=a&filter=author.name:b&filter=author.name:c'), 'filter')).toMatch(
      /at most 2 relation conditions per request/,
    );
    expect(expectTooComplex(await posts('where[author.friend.friend.name]=a'), 'where.author.friend.friend.name')).toBe(
      'a relation path of 3 hops; at most 2 hops per path (core.api.maxRelationDepth)',
    );
  });

  it("does not bound an access rule's own relation condition, which no client could narrow", async () => {
    const res = await request(t.app).get('/api/guarded?limit=50').set(...user);
    expectOkList(res);
    expect(res.body.totalDocs).toBe(30);
  });
});
