// GET /api/<slug> and /api/<slug>/:id end to end, population: depth (Form A) and include (Forms B/C,
// dotted for nested), related records under their collection's hidden fields and read access, population
// batched (queries counted on the wire), relation filters under the related read access, fields with both.
import request from 'supertest';
import mongoose, { type Connection, Types } from 'mongoose';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';
import { USER_ID, expectOkList, expectQueryError, idsOf, qs, recordsOf } from '../helpers/list-assertions';
import { closeTestConnection, testDbUri, uniqueDbName } from '../helpers/test-db';

const user = asUser({ id: USER_ID });
const admin = asUser({ id: '000000000000000000000002', role: 'admin' });
type Who = [string, string];

let t: TestApp;
let connection: Connection;
let dbName: string;
/** `find` commands sent to this test's database, by collection. */
let finds: string[] = [];

const oid = () => new Types.ObjectId();
const hex = (id: Types.ObjectId) => id.toHexString();
const pad = (n: number) => String(n).padStart(2, '0');

const companies = ['Acme', 'Globex', 'Initech'].map((name, i) => ({ _id: oid(), name, secret: `SECRET-company-${i}` }));
const people = Array.from({ length: 20 }, (_, i) => ({
  _id: oid(),
  name: `Person ${pad(i)}`,
  email: `p${i}@example.com`,
  company: companies[i % 3]._id,
  secret: `SECRET-person-${i}`,
}));
const tags = Array.from({ length: 5 }, (_, i) => ({
  _id: oid(),
  name: `tag-${i}`,
  secret: `SECRET-tag-${i}`,
  // The last tag is soft-deleted: it is never populated.
  ...(i === 4 ? { deletedAt: new Date('2024-01-01T00:00:00.000Z') } : {}),
}));
const vaults = ['V0', 'V1'].map((name) => ({ _id: oid(), name }));
const notices = Array.from({ length: 4 }, (_, i) => ({ _id: oid(), name: `notice-${i}`, public: i % 2 === 0 }));
const posts = Array.from({ length: 20 }, (_, i) => ({
  _id: oid(),
  title: `post-${pad(i)}`,
  views: i,
  author: people[i]._id,
  tags: [tags[i % 5]._id, tags[(i + 1) % 5]._id],
  vault: vaults[i % 2]._id,
  notices: [notices[i % 4]._id, notices[(i + 1) % 4]._id],
  reviewer: people[(i + 1) % 20]._id,
}));
const missingPerson = oid();
const orphan = { _id: oid(), title: 'orphan', views: 100, author: missingPerson, tags: [missingPerson, tags[0]._id] };
const lonely = { _id: oid(), title: 'lonely', views: 101 };

beforeAll(async () => {
  dbName = uniqueDbName('crpop');
  connection = await mongoose.createConnection(testDbUri(), { dbName, monitorCommands: true }).asPromise();
  connection.getClient().on('commandStarted', (event) => {
    if (event.commandName === 'find' && event.databaseName === dbName) finds.push(String(event.command.find));
  });
  t = await createTestApp(
    {
      collections: [
        { slug: 'companies', fields: { name: { type: 'text' }, secret: { type: 'text', hidden: true } } },
        {
          slug: 'people',
          fields: {
            name: { type: 'text' },
            email: { type: 'email' },
            company: { type: 'relationship', relationTo: 'companies' },
            secret: { type: 'text', hidden: true },
          },
        },
        { slug: 'tags', softDelete: true, fields: { name: { type: 'text' }, secret: { type: 'text', hidden: true } } },
        {
          slug: 'vaults',
          access: { read: ({ user: who }) => who?.role === 'admin' },
          fields: { name: { type: 'text' } },
        },
        {
          slug: 'notices',
          access: { read: ({ user: who }) => (who?.role === 'admin' ? true : { public: { eq: true } }) },
          fields: { name: { type: 'text' }, public: { type: 'boolean' } },
        },
        {
          slug: 'posts',
          fields: {
            title: { type: 'text' },
            views: { type: 'number' },
            author: { type: 'relationship', relationTo: 'people' },
            tags: { type: 'relationship', relationTo: 'tags', hasMany: true },
            vault: { type: 'relationship', relationTo: 'vaults' },
            notices: { type: 'relationship', relationTo: 'notices', hasMany: true },
            // A hidden relation: never returned, populated, included or filtered through.
            reviewer: { type: 'relationship', relationTo: 'people', hidden: true },
          },
        },
      ],
    },
    { connection },
  );
  await connection.collection('companies').insertMany(companies.map((doc) => ({ ...doc })));
  await connection.collection('people').insertMany(people.map((doc) => ({ ...doc })));
  await connection.collection('tags').insertMany(tags.map((doc) => ({ ...doc })));
  await connection.collection('vaults').insertMany(vaults.map((doc) => ({ ...doc })));
  await connection.collection('notices').insertMany(notices.map((doc) => ({ ...doc })));
  await connection.collection('posts').insertMany([...posts, orphan, lonely].map((doc) => ({ ...doc })));
});

afterAll(async () => {
  await t.close();
  await closeTestConnection(connection);
});
afterEach(() => expect(t.hostErrors).toEqual([]));

async function get(path: string, who: Who = user): Promise<request.Response> {
  const res = await request(t.app).get(path).set(...who);
  expect(res.text).not.toContain('SECRET');
  return res;
}

/** Counts the find commands one request sends, by collection. */
async function countFinds(path: string, who: Who = user): Promise<{ res: request.Response; counts: Record<string, number> }> {
  finds = [];
  const res = await get(path, who);
  const counts: Record<string, number> = {};
  for (const name of finds) counts[name] = (counts[name] ?? 0) + 1;
  return { res, counts };
}

// Expected records. Seeded documents carry no timestamps, so theirs read as null.
const NO_TIMES = { createdAt: null, updatedAt: null };
const companyRecord = (id: Types.ObjectId) => {
  const company = companies.find((c) => c._id.equals(id));
  return company ? { id: hex(company._id), name: company.name, ...NO_TIMES } : hex(id);
};
const personRecord = (id: Types.ObjectId, nested: boolean) => {
  const person = people.find((p) => p._id.equals(id));
  if (!person) return hex(id);
  return {
    id: hex(person._id),
    name: person.name,
    email: person.email,
    company: nested ? companyRecord(person.company) : hex(person.company),
    ...NO_TIMES,
  };
};
const tagRecord = (id: Types.ObjectId) => {
  const tag = tags.find((g) => g._id.equals(id));
  return tag && !tag.deletedAt ? { id: hex(tag._id), name: tag.name, ...NO_TIMES, deletedAt: null } : hex(id);
};
const vaultRecord = (id: Types.ObjectId, isAdmin: boolean) => {
  const vault = vaults.find((v) => v._id.equals(id));
  return vault && isAdmin ? { id: hex(vault._id), name: vault.name, ...NO_TIMES } : hex(id);
};
const noticeRecord = (id: Types.ObjectId, isAdmin: boolean) => {
  const notice = notices.find((n) => n._id.equals(id));
  return notice && (isAdmin || notice.public) ? { id: hex(notice._id), name: notice.name, public: notice.public, ...NO_TIMES } : hex(id);
};

interface Expand {
  author?: 'id' | 'record' | 'nested';
  tags?: boolean;
  vault?: boolean;
  notices?: boolean;
  admin?: boolean;
}

/** The expected record of seeded post `i` with the given relations expanded. */
function postRecord(i: number, expand: Expand = {}): Record<string, unknown> {
  const post = posts[i];
  const isAdmin = expand.admin === true;
  return {
    id: hex(post._id),
    title: post.title,
    views: post.views,
    author: !expand.author || expand.author === 'id' ? hex(post.author) : personRecord(post.author, expand.author === 'nested'),
    tags: post.tags.map((id) => (expand.tags ? tagRecord(id) : hex(id))),
    vault: expand.vault ? vaultRecord(post.vault, isAdmin) : hex(post.vault),
    notices: post.notices.map((id) => (expand.notices ? noticeRecord(id, isAdmin) : hex(id))),
    ...NO_TIMES,
  };
}

const ALL_1: Expand = { author: 'record', tags: true, vault: true, notices: true };
const ALL_2: Expand = { ...ALL_1, author: 'nested' };
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

describe('depth', () => {
  it('depth=0 (default) leaves relationships as ids', async () => {
    for (const query of ['sort=views&perPage=20', 'sort=views&perPage=20&depth=0']) {
      const res = await get(`/api/posts?${query}`);
      expectOkList(res);
      expect(recordsOf(res)).toEqual(range(20).map((i) => postRecord(i)));
    }
  });

  it('depth=1 populates single and hasMany relations one level, under read access and hidden fields', async () => {
    const res = await get('/api/posts?sort=views&perPage=20&depth=1');
    expectOkList(res);
    expect(recordsOf(res)).toEqual(range(20).map((i) => postRecord(i, ALL_1)));
    // Spot check of what that means for one record.
    expect(recordsOf(res)[1]).toEqual({
      id: hex(posts[1]._id),
      title: 'post-01',
      views: 1,
      author: { id: hex(people[1]._id), name: 'Person 01', email: 'p1@example.com', company: hex(companies[1]._id), ...NO_TIMES },
      tags: [
        { id: hex(tags[1]._id), name: 'tag-1', ...NO_TIMES, deletedAt: null },
        { id: hex(tags[2]._id), name: 'tag-2', ...NO_TIMES, deletedAt: null },
      ],
      // Not readable by this user: stays an id.
      vault: hex(vaults[1]._id),
      // notice-1 is private (stays an id), notice-2 public.
      notices: [hex(notices[1]._id), { id: hex(notices[2]._id), name: 'notice-2', public: true, ...NO_TIMES }],
      ...NO_TIMES,
    });
  });

  it('depth=1 for an admin populates what the admin may read', async () => {
    const res = await get('/api/posts?sort=views&perPage=20&depth=1', admin);
    expect(recordsOf(res)).toEqual(range(20).map((i) => postRecord(i, { ...ALL_1, admin: true })));
  });

  it('depth=2 populates the relations of related records too', async () => {
    const res = await get('/api/posts?sort=views&perPage=20&depth=2');
    expectOkList(res);
    expect(recordsOf(res)).toEqual(range(20).map((i) => postRecord(i, ALL_2)));
    expect(recordsOf(res)[0].author).toEqual({
      id: hex(people[0]._id),
      name: 'Person 00',
      email: 'p0@example.com',
      company: { id: hex(companies[0]._id), name: 'Acme', ...NO_TIMES },
      ...NO_TIMES,
    });
  });

  it('keeps ids whose record is gone or soft-deleted, and reads absent relations as null', async () => {
    const res = await get('/api/posts?where[views][gte]=100&sort=views&depth=2');
    const tag0 = { id: hex(tags[0]._id), name: 'tag-0', ...NO_TIMES, deletedAt: null };
    expect(recordsOf(res)).toEqual([
      { id: hex(orphan._id), title: 'orphan', views: 100, author: hex(missingPerson), tags: [hex(missingPerson), tag0], vault: null, notices: null, ...NO_TIMES },
      { id: hex(lonely._id), title: 'lonely', views: 101, author: null, tags: null, vault: null, notices: null, ...NO_TIMES },
    ]);
    const deletedTag = await get('/api/posts?where[views][eq]=3&depth=1');
    expect(recordsOf(deletedTag)[0].tags).toEqual([{ id: hex(tags[3]._id), name: 'tag-3', ...NO_TIMES, deletedAt: null }, hex(tags[4]._id)]);
  });

  it('rejects a depth above the maximum (2) or not a whole number', async () => {
    expectQueryError(await get('/api/posts?depth=3'), 'depth', 'invalid_depth');
    expectQueryError(await get('/api/posts?depth=-1'), 'depth', 'invalid_depth');
    expectQueryError(await get('/api/posts?depth=1.5'), 'depth', 'invalid_depth');
  });
});

describe('include', () => {
  it.each<[string, Expand]>([
    ['author', { author: 'record' }],
    ['author.company', { author: 'nested' }],
    ['tags', { tags: true }],
    ['tags,author', { tags: true, author: 'record' }],
    ['author.company,notices', { author: 'nested', notices: true }],
    ['vault', { vault: true }],
  ])('include=%s populates exactly those relations', async (include, expand) => {
    const res = await get(`/api/posts?sort=views&perPage=20&${qs(['include', include])}`);
    expectOkList(res);
    expect(recordsOf(res)).toEqual(range(20).map((i) => postRecord(i, expand)));
  });

  it('repeated include parameters and depth merge', async () => {
    const repeated = await get('/api/posts?sort=views&perPage=20&include=author&include=tags');
    expect(recordsOf(repeated)).toEqual(range(20).map((i) => postRecord(i, { author: 'record', tags: true })));
    const merged = await get('/api/posts?sort=views&perPage=20&depth=1&include=author.company');
    expect(recordsOf(merged)).toEqual(range(20).map((i) => postRecord(i, ALL_2)));
  });

  it('rejects include of something that is not a relation', async () => {
    expectQueryError(await get('/api/posts?include=title'), 'include', 'invalid_include', /"title" is not a relation/);
    expectQueryError(await get('/api/posts?include=author.name'), 'include', 'invalid_include', /"name" is not a relation/);
    expectQueryError(await get('/api/posts?include=author.secret'), 'include', 'invalid_include');
    expectQueryError(await get('/api/posts?include=nope'), 'include', 'invalid_include');
  });

  it('fields and populate together: only the selected fields, the relation populated', async () => {
    const res = await get('/api/posts?sort=views&perPage=3&fields=title,author&include=author.company');
    expect(recordsOf(res)).toEqual(
      range(3).map((i) => ({ id: hex(posts[i]._id), title: posts[i].title, author: personRecord(posts[i].author, true) })),
    );
  });

  it('populates in cursor mode and in Form A too', async () => {
    const cursor = await get('/api/posts?sort=views&perPage=4&cursor=&include=author');
    expect(recordsOf(cursor)).toEqual(range(4).map((i) => postRecord(i, { author: 'record' })));
    const next = await get(`/api/posts?sort=views&perPage=4&include=author&${qs(['cursor', cursor.body.meta.nextCursor])}`);
    expect(recordsOf(next)).toEqual(range(4).map((i) => postRecord(i + 4, { author: 'record' })));
    const formA = await get('/api/posts?sort=views&limit=4&page=2&depth=1');
    expect(formA.body.docs).toEqual(range(4).map((i) => postRecord(i + 4, ALL_1)));
  });
});

describe('population is batched', () => {
  it('sends one find per relation and level for a page of 20, not one per record', async () => {
    const { res, counts } = await countFinds('/api/posts?sort=views&perPage=20&depth=2');
    expect(recordsOf(res)).toHaveLength(20);
    // vaults: not readable by this user, so not even queried.
    expect(counts).toEqual({ posts: 1, people: 1, companies: 1, tags: 1, notices: 1 });
  });

  it('counts the same for an admin (vaults readable) and with include', async () => {
    expect((await countFinds('/api/posts?sort=views&perPage=20&depth=1', admin)).counts).toEqual({
      posts: 1,
      people: 1,
      tags: 1,
      vaults: 1,
      notices: 1,
    });
    expect((await countFinds('/api/posts?sort=views&perPage=20&include=author.company')).counts).toEqual({
      posts: 1,
      people: 1,
      companies: 1,
    });
    expect((await countFinds('/api/posts?sort=views&perPage=20')).counts).toEqual({ posts: 1 });
  });

  it('skips population of relations that fields= leaves out', async () => {
    expect((await countFinds('/api/posts?sort=views&perPage=20&fields=title&depth=2')).counts).toEqual({ posts: 1 });
    expect((await countFinds('/api/posts?sort=views&perPage=20&fields=title,author&depth=2')).counts).toEqual({
      posts: 1,
      people: 1,
      companies: 1,
    });
    expect((await countFinds(`/api/posts/${hex(posts[5]._id)}?fields=title&depth=2`)).counts).toEqual({ posts: 1 });
  });

  it('GET /:id populates with one find per relation as well', async () => {
    const { res, counts } = await countFinds(`/api/posts/${hex(posts[5]._id)}?depth=2`);
    expect(res.status).toBe(200);
    expect(counts).toEqual({ posts: 1, people: 1, companies: 1, tags: 1, notices: 1 });
  });
});

describe('a hidden relation', () => {
  it('is never returned nor populated, at any depth', async () => {
    for (const query of ['depth=0', 'depth=1', 'depth=2', 'include=author']) {
      const res = await get(`/api/posts?sort=views&perPage=20&${query}`);
      expectOkList(res);
      for (const record of recordsOf(res)) expect(record).not.toHaveProperty('reviewer');
      // The only people records in the response are the authors.
      const names = res.text.match(/Person \d\d/g) ?? [];
      expect(names.length).toBe(query === 'depth=0' ? 0 : 20);
    }
  });

  it.each([
    ['include', (name: string) => `include=${name}`, 'include', 'invalid_include'],
    ['nested include', (name: string) => `include=${name}.company`, 'include', 'invalid_include'],
    ['where through it', (name: string) => `where[${name}.name]=Person%2001`, 'where.NAME.name', 'unknown_field'],
    ['where on it', (name: string) => `where[${name}][exists]=true`, 'where.NAME', 'unknown_field'],
    ['fields', (name: string) => `fields=title,${name}`, 'fields', 'invalid_fields'],
    ['sort', (name: string) => `sort=${name}`, 'sort', 'invalid_sort'],
  ])('%s answers exactly like an unknown field', async (_name, build, field, code) => {
    const hidden = await get(`/api/posts?${build('reviewer')}`);
    const unknown = await get(`/api/posts?${build('nonexistent')}`);
    expectQueryError(hidden, field.replace('NAME', 'reviewer'), code);
    expectQueryError(unknown, field.replace('NAME', 'nonexistent'), code);
    expect(hidden.text.split('reviewer').join('nonexistent')).toBe(unknown.text);
  });
});

describe('relation filters honour the related read access', () => {
  it('a collection the user may not read matches nothing through a dotted filter', async () => {
    const denied = await get('/api/posts?where[vault.name][eq]=V0&perPage=100');
    expectOkList(denied);
    expect(idsOf(denied)).toEqual([]);
    const allowed = await get('/api/posts?where[vault.name][eq]=V0&perPage=100&sort=views', admin);
    expect(idsOf(allowed)).toEqual(posts.filter((_, i) => i % 2 === 0).map((post) => hex(post._id)));
  });

  it("a where-constraint on the related collection applies inside the filter", async () => {
    const privateNotice = await get('/api/posts?where[notices.name][eq]=notice-1&perPage=100');
    expect(idsOf(privateNotice)).toEqual([]);
    const asAdmin = await get('/api/posts?where[notices.name][eq]=notice-1&perPage=100&sort=views', admin);
    expect(idsOf(asAdmin)).toEqual(posts.filter((_, i) => i % 4 === 1 || i % 4 === 0).map((post) => hex(post._id)));
    const publicNotice = await get('/api/posts?where[notices.name][eq]=notice-2&perPage=100&sort=views');
    expect(idsOf(publicNotice)).toEqual(posts.filter((_, i) => i % 4 === 2 || i % 4 === 1).map((post) => hex(post._id)));
  });

  it('filters through two relationship hops', async () => {
    const res = await get('/api/posts?where[author.company.name][eq]=Globex&perPage=100&sort=views');
    expect(idsOf(res)).toEqual(posts.filter((_, i) => i % 3 === 1).map((post) => hex(post._id)));
  });

  it('a soft-deleted related record does not match', async () => {
    const res = await get('/api/posts?where[tags.name][eq]=tag-4&perPage=100');
    expect(idsOf(res)).toEqual([]);
    const live = await get('/api/posts?where[tags.name][eq]=tag-3&perPage=100&sort=views');
    expect(idsOf(live)).toEqual(posts.filter((_, i) => i % 5 === 3 || i % 5 === 2).map((post) => hex(post._id)));
  });
});

describe('GET /:id honours depth, include and fields', () => {
  const path = () => `/api/posts/${hex(posts[7]._id)}`;

  it('depth 0, 1 and 2', async () => {
    const plain = await get(path());
    expect(plain.status).toBe(200);
    expect(plain.headers['content-type']).toMatch(/^application\/json/);
    expect(plain.body).toEqual(postRecord(7));
    expect((await get(`${path()}?depth=1`)).body).toEqual(postRecord(7, ALL_1));
    expect((await get(`${path()}?depth=1`, admin)).body).toEqual(postRecord(7, { ...ALL_1, admin: true }));
    expect((await get(`${path()}?depth=2`)).body).toEqual(postRecord(7, ALL_2));
  });

  it('include, dotted include, and fields', async () => {
    expect((await get(`${path()}?include=author`)).body).toEqual(postRecord(7, { author: 'record' }));
    expect((await get(`${path()}?include=author.company,tags`)).body).toEqual(postRecord(7, { author: 'nested', tags: true }));
    const selected = await get(`${path()}?fields=title`);
    expect(selected.body).toEqual({ id: hex(posts[7]._id), title: 'post-07' });
    const both = await get(`${path()}?fields=title,author&include=author.company`);
    expect(Object.keys(both.body)).toEqual(['id', 'title', 'author']);
    expect(both.body).toEqual({ id: hex(posts[7]._id), title: 'post-07', author: personRecord(posts[7].author, true) });
    const depthFields = await get(`${path()}?fields=vault,notices&depth=1`, admin);
    expect(depthFields.body).toEqual({
      id: hex(posts[7]._id),
      vault: vaultRecord(posts[7].vault, true),
      notices: posts[7].notices.map((id) => noticeRecord(id, true)),
    });
  });

  it('ignores list-only parameters on GET /:id', async () => {
    const res = await get(`${path()}?page=0&sort=nope&perPage=1000`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(postRecord(7));
  });

  it('rejects a bad depth, include or fields on GET /:id', async () => {
    expectQueryError(await get(`${path()}?depth=5`), 'depth', 'invalid_depth');
    expectQueryError(await get(`${path()}?include=views`), 'include', 'invalid_include');
    expectQueryError(await get(`${path()}?fields=nope`), 'fields', 'invalid_fields');
  });

  it('an unreadable related record stays an id on GET /:id as well', async () => {
    const res = await get(`${path()}?include=vault,notices`);
    expect(res.body.vault).toBe(hex(posts[7].vault));
    expect(res.body.notices).toEqual(posts[7].notices.map((id) => noticeRecord(id, false)));
  });
});
