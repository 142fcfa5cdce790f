// Every control character (U+0000-U+001F, U+007F) in every query parameter and body field type: the
// answer is 2xx or a 400 problem+json naming the parameter/field, never a 500, and nothing is logged.
// Text holding control characters stays storable and findable (eq, like, contains, search).
import request from 'supertest';
import { Types } from 'mongoose';
import { type TestApp, asUser, createTestApp } from '../helpers/create-test-app';
import { PROBLEM_TYPE, USER_ID, idsOf } from '../helpers/list-assertions';

const user = asUser({ id: USER_ID });
// About 3,000 requests in all; each table test sends its 33 at once, but a loaded machine is slow.
jest.setTimeout(120_000);
const CONTROLS = [...Array.from({ length: 0x20 }, (_, code) => String.fromCharCode(code)), '\u007f'];
const hex = (c: string) => `U+${c.charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()}`;
const enc = encodeURIComponent;

let t: TestApp;
const logged: unknown[][] = [];
const authorId = new Types.ObjectId();
/** Post id by control character, each post titled `rec<c>end`. */
const seeded = new Map<string, string>();
/** The record the PATCH cases write to. */
const patchTarget = new Types.ObjectId();

beforeAll(async () => {
  t = await createTestApp({
    logger: { error: (...args: unknown[]) => logged.push(args), warn: () => undefined, info: () => undefined },
    // The posts' upload field needs the file store.
    uploads: {},
    collections: [
      { slug: 'authors', fields: { name: { type: 'text' } } },
      {
        // A host bug that quotes client text in an error: the log must get it escaped.
        slug: 'traps',
        fields: { name: { type: 'text' } },
        access: {
          read: ({ req }) => {
            throw new Error(`no access for ${String(req?.query.x)}`);
          },
        },
      },
      {
        slug: 'posts',
        softDelete: true,
        search: ['title', 'body'],
        fields: {
          title: { type: 'text' },
          body: { type: 'textarea' },
          email: { type: 'email' },
          views: { type: 'number' },
          status: { type: 'select', options: ['draft', 'published'] },
          author: { type: 'relationship', relationTo: 'authors' },
          cover: { type: 'upload' },
          tags: { type: 'array', of: 'text' },
          meta: { type: 'json' },
          publishedAt: { type: 'date' },
        },
      },
    ],
  });
  await t.connection.collection('authors').insertOne({ _id: authorId, name: 'Ann' });
  const docs = CONTROLS.map((c) => ({ _id: new Types.ObjectId(), title: `rec${c}end`, tags: [`tag${c}`], author: authorId }));
  await t.connection.collection('posts').insertMany(docs.map((doc) => ({ ...doc, deletedAt: null })));
  docs.forEach((doc, index) => seeded.set(CONTROLS[index], doc._id.toHexString()));
  await t.connection.collection('posts').insertOne({ _id: patchTarget, title: 'patch me', deletedAt: null });
});

afterAll(async () => {
  await t.close();
});

afterEach(() => {
  expect(logged).toEqual([]);
  expect(t.hostErrors).toEqual([]);
});

/** Why a response is not acceptable (undefined when it is): 2xx, or 400 problem+json whose first error names `name`. */
function problemWith(res: request.Response, named: (field: string) => boolean): string | undefined {
  if (res.status >= 200 && res.status < 300) return undefined;
  if (res.status !== 400) return `status ${res.status}: ${res.text.slice(0, 200)}`;
  if (!PROBLEM_TYPE.test(String(res.headers['content-type']))) return `400 as ${String(res.headers['content-type'])}`;
  const field = (res.body as { errors?: Array<{ field?: unknown }> }).errors?.[0]?.field;
  if (typeof field !== 'string' || !named(field)) return `400 naming ${JSON.stringify(field)}: ${res.text.slice(0, 200)}`;
  return undefined;
}

/** Runs `check` for every control character at once; its findings, each prefixed with the character's code point. */
async function eachControl(check: (c: string) => Promise<string[]>): Promise<string[]> {
  const found = await Promise.all(CONTROLS.map(async (c) => (await check(c)).map((finding) => `${hex(c)} ${finding}`)));
  return found.flat();
}

/** A list query built from one control character, and the parameter its errors must name. */
type QueryCase = [label: string, param: string, build: (c: string) => string];

const whereJson = (where: unknown) => `where=${enc(JSON.stringify(where))}`;
const TEXT_OPERATORS = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'like', 'nlike', 'contains', 'notContains', 'in', 'nin', 'exists'];

const QUERY_CASES: QueryCase[] = [
  ...TEXT_OPERATORS.map((op): QueryCase => [`where JSON title.${op}`, 'where', (c) => whereJson({ title: { [op]: `a${c}b` } })]),
  ...TEXT_OPERATORS.map((op): QueryCase => [`where bracket title.${op}`, 'where', (c) => `where[title][${op}]=${enc(`a${c}b`)}`]),
  ...['any', 'all', 'contains', 'notContains', 'in'].map((op): QueryCase => [`where tags.${op}`, 'where', (c) => `where[tags][${op}]=${enc(`tag${c}`)}`]),
  ['where JSON list with the character', 'where', (c) => whereJson({ title: { in: [`a${c}`, 'b'] } })],
  ['where bracket JSON list', 'where', (c) => `where[title][in]=${enc(JSON.stringify([`a${c}`]))}`],
  ['where bracket operators as JSON', 'where', (c) => `where[title]=${enc(JSON.stringify({ like: `%${c}%` }))}`],
  ['where email eq', 'where', (c) => `where[email][eq]=${enc(`a${c}@b.co`)}`],
  ['where select eq', 'where', (c) => `where[status][eq]=${enc(`draft${c}`)}`],
  ['where number gt', 'where', (c) => `where[views][gt]=${enc(`1${c}`)}`],
  ['where number between', 'where', (c) => `where[views][between]=${enc(`1,2${c}`)}`],
  ['where date gt', 'where', (c) => `where[publishedAt][gt]=${enc(`2024-01-01${c}`)}`],
  ['where date between', 'where', (c) => whereJson({ publishedAt: { between: ['2024', `2025${c}`] } })],
  ['where relationship eq', 'where', (c) => `where[author][eq]=${enc(`${authorId.toHexString()}${c}`)}`],
  ['where upload eq', 'where', (c) => `where[cover][eq]=${enc(`${c}`)}`],
  ['where json exists', 'where', (c) => `where[meta][exists]=${enc(`true${c}`)}`],
  ['where relation eq', 'where', (c) => `where[author.name][eq]=${enc(`a${c}`)}`],
  ['where relation like', 'where', (c) => `where[author.name][like]=${enc(`%${c}%`)}`],
  ['where relation JSON contains', 'where', (c) => whereJson({ 'author.name': { contains: `${c}` } })],
  ['where compound', 'where', (c) => whereJson({ or: [{ title: { like: `a${c}` } }, { body: { contains: c } }] })],
  ['where field name', 'where', (c) => `where[${enc(`ti${c}tle`)}][eq]=x`],
  ['where relation path', 'where', (c) => `where[${enc(`author.na${c}me`)}][eq]=x`],
  ['where operator name', 'where', (c) => `where[title][${enc(`e${c}q`)}]=x`],
  ['where JSON key', 'where', (c) => whereJson({ [`title${c}`]: 'x' })],
  ['where raw text', 'where', (c) => `where=${enc(`{${c}`)}`],
  ['where whole value', 'where', (c) => `where=${enc(c)}`],
  ['filter value', 'filter', (c) => `filter=${enc(`title:a${c}b`)}`],
  ['filter comparison', 'filter', (c) => `filter=${enc(`title:>=${c}`)}`],
  ['filter field name', 'filter', (c) => `filter=${enc(`ti${c}tle:x`)}`],
  ['filter relation', 'filter', (c) => `filter=${enc(`author.name:${c}`)}`],
  ['filter number', 'filter', (c) => `filter=${enc(`views:<${c}`)}`],
  ['sort', 'sort', (c) => `sort=${enc(`title${c}`)}`],
  ['sort alone', 'sort', (c) => `sort=${enc(`-${c}`)}`],
  ['fields', 'fields', (c) => `fields=${enc(`title,${c}x`)}`],
  ['include', 'include', (c) => `include=${enc(`author${c}`)}`],
  ['search', 'search', (c) => `search=${enc(`a${c}b`)}`],
  ['search alone', 'search', (c) => `search=${enc(c)}`],
  ['cursor', 'cursor', (c) => `cursor=${enc(c)}`],
  ['cursor with a valid prefix', 'cursor', (c) => `cursor=${enc(`eyJzIjoiIn0${c}`)}`],
  ['depth', 'depth', (c) => `depth=${enc(`1${c}`)}`],
  ['limit', 'limit', (c) => `limit=${enc(`5${c}`)}`],
  ['page', 'page', (c) => `page=${enc(`${c}2`)}`],
  ['count', 'count', (c) => `count=${enc(`true${c}`)}`],
  ['includeDeleted', 'includeDeleted', (c) => `includeDeleted=${enc(`${c}`)}`],
];

describe('GET /posts with a control character in a parameter', () => {
  it.each(QUERY_CASES)('%s: 2xx or a 400 naming %s', async (_label, param, build) => {
    const failures = await eachControl(async (c) => {
      const res = await request(t.app).get(`/api/posts?${build(c)}`).set(...user);
      const failure = problemWith(res, (field) => field === param || field.startsWith(`${param}.`));
      return failure ? [failure] : [];
    });
    expect(failures).toEqual([]);
  });

  it.each<[string, string, (c: string) => string]>([
    ['fields', 'fields', (c) => `fields=${enc(`title${c}`)}`],
    ['depth', 'depth', (c) => `depth=${enc(`${c}`)}`],
    ['include', 'include', (c) => `include=${enc(`${c}author`)}`],
  ])('GET /posts/:id with %s: 2xx or a 400 naming it', async (_label, param, build) => {
    const failures = await eachControl(async (c) => {
      const res = await request(t.app).get(`/api/posts/${patchTarget.toHexString()}?${build(c)}`).set(...user);
      const failure = problemWith(res, (field) => field === param);
      return failure ? [failure] : [];
    });
    expect(failures).toEqual([]);
  });
});

describe('text holding a control character stays findable', () => {
  it.each(CONTROLS.map((c) => [hex(c), c]))('%s: eq, like, contains, search, a relation like and a tag', async (_label, c) => {
    const expected = [seeded.get(c)];
    const queries = [
      `where[title][eq]=${enc(`rec${c}end`)}`,
      `where[title][like]=${enc(`%${c}end`)}`,
      whereJson({ title: { contains: `rec${c}e` } }),
      `search=${enc(`c${c}e`)}`,
      `filter=${enc(`title:rec${c}end`)}`,
      `where[tags][contains]=${enc(`tag${c}`)}`,
    ];
    for (const query of queries) {
      const res = await request(t.app).get(`/api/posts?${query}&limit=100`).set(...user);
      expect([query, res.status]).toEqual([query, 200]);
      // Whitespace controls are trimmed from a search, which then matches more than one record.
      if (query.startsWith('search=') && `c${c}e`.trim() !== `c${c}e`) continue;
      expect([query, idsOf(res)]).toEqual([query, expected]);
    }
    const relation = await request(t.app).get(`/api/posts?${whereJson({ 'author.name': { like: `a${c}%` } })}`).set(...user);
    expect(relation.status).toBe(200);
    expect(idsOf(relation)).toEqual([]);
  });
});

/** A body field holding one control character, and whether the field may store it. */
type BodyCase = [label: string, field: string, build: (c: string) => unknown, accepts: (c: string) => boolean];
const always = () => true;
const never = () => false;

const BODY_CASES: BodyCase[] = [
  ['text', 'title', (c) => `a${c}b`, always],
  ['textarea', 'body', (c) => `line${c}line`, always],
  ['email', 'email', (c) => `a${c}b@example.com`, never],
  ['number as text', 'views', (c) => `1${c}`, never],
  ['select', 'status', (c) => `draft${c}`, never],
  ['relationship', 'author', (c) => `${authorId.toHexString()}${c}`, never],
  ['upload', 'cover', (c) => `${c}${authorId.toHexString()}`, never],
  ['array of text', 'tags', (c) => [`x${c}`, c], always],
  ['json value', 'meta', (c) => ({ note: `a${c}b`, list: [c] }), always],
  ['json key', 'meta', (c) => ({ [`k${c}`]: 1 }), (c) => c !== '\u0000'],
  ['nested json key', 'meta', (c) => ({ outer: [{ [`${c}`]: true }] }), (c) => c !== '\u0000'],
  ['date', 'publishedAt', (c) => `2024-05-01${c}`, never],
];

describe('POST and PATCH /posts with a control character in a field', () => {
  it.each(BODY_CASES)('%s (%s)', async (_label, field, build, accepts) => {
    const failures = await eachControl(async (c) => {
      const found: string[] = [];
      const value = build(c);
      const created = await request(t.app).post('/api/posts').set(...user).send({ [field]: value });
      const failure = problemWith(created, (name) => name === field);
      if (failure) found.push(`POST ${failure}`);
      else if (accepts(c) !== (created.status === 201)) found.push(`POST answered ${created.status}`);
      else if (created.status === 201) {
        // Stored as sent: read it back.
        const read = await request(t.app).get(`/api/posts/${created.body.id}`).set(...user);
        if (JSON.stringify(read.body[field]) !== JSON.stringify(value)) found.push(`GET read back ${JSON.stringify(read.body[field])}`);
      }
      const patched = await request(t.app).patch(`/api/posts/${patchTarget.toHexString()}`).set(...user).send({ [field]: value });
      const patchFailure = problemWith(patched, (name) => name === field);
      if (patchFailure) found.push(`PATCH ${patchFailure}`);
      else if (accepts(c) !== (patched.status === 200)) found.push(`PATCH answered ${patched.status}`);
      return found;
    });
    expect(failures).toEqual([]);
  });

  it('a NUL in a json key is a 400 that says which keys are allowed; nothing is stored', async () => {
    const before = await t.connection.collection('posts').countDocuments();
    const res = await request(t.app).post('/api/posts').set(...user).send({ title: 'x', meta: { 'a\u0000b': 1 } });
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(PROBLEM_TYPE);
    expect(res.body).toMatchObject({ code: 'validation_error', errors: [{ field: 'meta', code: 'invalid_key' }] });
    expect(res.body.errors[0].message).toBe(
      'meta key "a\\u0000b" is not allowed in a json value (keys may not start with "$", contain "." or NUL, or be __proto__, constructor or prototype)',
    );
    expect(await t.connection.collection('posts').countDocuments()).toBe(before);
  });

  it('a control character in a body key is an unknown field, named', async () => {
    for (const c of CONTROLS) {
      const res = await request(t.app).post('/api/posts').set(...user).send({ title: 'x', [`ti${c}tle`]: 'y' });
      expect(problemWith(res, (name) => name === `ti${c}tle`)).toBeUndefined();
      expect(res.status).toBe(400);
    }
  });
});

describe('the server log', () => {
  it('gets a 5xx error whose message quotes client text escaped, on one line', async () => {
    const res = await request(t.app).get(`/api/traps?x=${enc('a\u0000b\n[error] forged\u001b[0m')}`).set(...user);
    expect(res.status).toBe(500);
    expect(logged).toHaveLength(1);
    const [line, error] = logged[0] as [string, Error];
    logged.length = 0;
    expect(line).toBe('content-router: GET /api/traps failed:');
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toBe('no access for a\\u0000b\\u000a[error] forged\\u001b[0m');
    expect(error.stack?.split('\n')[0]).toBe(`Error: ${error.message}`);
    expect(`${line} ${error.stack}`).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f]/);
  });
});
