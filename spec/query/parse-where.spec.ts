// parseWhere: every operator in JSON form, qs bracket form and (where it has one) Form C filter form,
// compounds, relationship paths, hidden fields, and every rejection with its exact 400.
import { Types } from 'mongoose';
import { describeCollections } from '../../lib/schema/describe-collection';
import { parseFilter } from '../../lib/query/parse-filter';
import { parseWhere } from '../../lib/query/parse-where';
import type { WhereNode } from '../../lib/query/types';
import {
  authors,
  companies,
  categories,
  describeRejection,
  expectedRejection,
  leaf,
  parseQs,
  posts,
  registry,
  registryWithUploads,
  rejectionOf,
} from './fixtures';

const ID_A = '65a1b2c3d4e5f60718293a4b';
const ID_B = '65a1b2c3d4e5f60718293a4c';
const oid = (hex: string) => new Types.ObjectId(hex);
const date = (iso: string) => new Date(iso);

const where = (input: unknown, trusted = false) => parseWhere(input, posts, registry, { trusted });
/** The where of a query string, parsed by qs as the router does. */
const bracket = (query: string) => where(parseQs(query).where);
const filter = (query: string) => parseFilter(parseQs(query).filter, posts, registry);

// [operator, JSON where, equivalent bracket query strings, Form C filter (or null), expected node]
const OPERATOR_CASES: Array<[string, Record<string, unknown>, string[], string | null, WhereNode]> = [
  ['eq', { title: { eq: 'Hello' } }, ['where[title][eq]=Hello'], 'filter=title:Hello', leaf('title', 'eq', 'Hello')],
  ['eq (bare)', { title: 'Hello' }, ['where[title]=Hello'], null, leaf('title', 'eq', 'Hello')],
  ['eq number', { views: { eq: 5 } }, ['where[views][eq]=5'], 'filter=views:5', leaf('views', 'eq', 5)],
  ['eq boolean', { published: true }, ['where[published]=true', 'where[published][eq]=1'], 'filter=published:true', leaf('published', 'eq', true)],
  ['eq null', { publishedAt: { eq: null } }, [], null, leaf('publishedAt', 'eq', null)],
  ['eq id', { id: ID_A }, [`where[id][eq]=${ID_A}`], `filter=id:${ID_A}`, leaf('id', 'eq', oid(ID_A))],
  ['eq relationship', { author: { eq: ID_A } }, [`where[author]=${ID_A}`], `filter=author:${ID_A}`, leaf('author', 'eq', oid(ID_A))],
  ['neq', { views: { neq: 5 } }, ['where[views][neq]=5'], 'filter=views:!=5', leaf('views', 'neq', 5)],
  ['neq null', { views: { neq: null } }, [], null, leaf('views', 'neq', null)],
  ['gt', { views: { gt: 5 } }, ['where[views][gt]=5'], 'filter=views:>5', leaf('views', 'gt', 5)],
  ['gte date', { publishedAt: { gte: '2024-01-01' } }, ['where[publishedAt][gte]=2024-01-01'], 'filter=publishedAt:>=2024-01-01', leaf('publishedAt', 'gte', date('2024-01-01T00:00:00Z'))],
  ['lt date-time', { publishedAt: { lt: '2024-01-01T10:00:00Z' } }, ['where[publishedAt][lt]=2024-01-01T10:00:00Z'], 'filter=publishedAt:<2024-01-01T10:00:00Z', leaf('publishedAt', 'lt', date('2024-01-01T10:00:00Z'))],
  ['lte string', { title: { lte: 'M' } }, ['where[title][lte]=M'], 'filter=title:<=M', leaf('title', 'lte', 'M')],
  ['gt id', { id: { gt: ID_A } }, [`where[id][gt]=${ID_A}`], `filter=id:>${ID_A}`, leaf('id', 'gt', oid(ID_A))],
  [
    'in',
    { status: { in: ['draft', 'published'] } },
    ['where[status][in]=draft,published', 'where[status][in][]=draft&where[status][in][]=published', 'where[status][in][0]=draft&where[status][in][1]=published', 'where[status][in]=["draft","published"]', 'where[status][in]=draft, published,'],
    null,
    leaf('status', 'in', ['draft', 'published']),
  ],
  ['in numbers', { views: { in: [1, '2'] } }, ['where[views][in]=1,2'], null, leaf('views', 'in', [1, 2])],
  ['in with null', { views: { in: [1, null] } }, [], null, leaf('views', 'in', [1, null])],
  ['in ids', { author: { in: [ID_A, ID_B] } }, [`where[author][in]=${ID_A},${ID_B}`], null, leaf('author', 'in', [oid(ID_A), oid(ID_B)])],
  ['in empty', { views: { in: [] } }, ['where[views][in]='], null, leaf('views', 'in', [])],
  ['nin', { status: { nin: ['draft'] } }, ['where[status][nin]=draft'], null, leaf('status', 'nin', ['draft'])],
  ['like (substring)', { title: { like: 'a.b' } }, ['where[title][like]=a.b'], null, leaf('title', 'like', /a\.b/i)],
  ['like (pattern)', { title: { like: 'He%o_' } }, ['where[title][like]=He%25o_'], null, leaf('title', 'like', /^He[\s\S]*o[\s\S]$/i)],
  ['like on array of text', { tags: { like: 'ne%' } }, ['where[tags][like]=ne%25'], null, leaf('tags', 'like', /^ne[\s\S]*$/i)],
  ['nlike', { title: { nlike: '%draft%' } }, ['where[title][nlike]=%25draft%25'], null, leaf('title', 'nlike', /^(?=([\s\S]*?draft))\1[\s\S]*$/i)],
  ['exists true', { meta: { exists: true } }, ['where[meta][exists]=true'], null, leaf('meta', 'exists', true)],
  ['exists false', { views: { exists: 'false' } }, ['where[views][exists]=false'], null, leaf('views', 'exists', false)],
  ['contains on array', { tags: { contains: 'news' } }, ['where[tags][contains]=news'], null, leaf('tags', 'contains', 'news')],
  ['contains on number array', { scores: { contains: '3' } }, ['where[scores][contains]=3'], null, leaf('scores', 'contains', 3)],
  ['contains on hasMany', { categories: { contains: ID_A } }, [`where[categories][contains]=${ID_A}`], null, leaf('categories', 'contains', oid(ID_A))],
  ['contains on text', { title: { contains: 'a+b' } }, ['where[title][contains]=a%2Bb'], null, leaf('title', 'contains', /a\+b/i)],
  ['notContains on array', { tags: { notContains: 'old' } }, ['where[tags][notContains]=old'], null, leaf('tags', 'notContains', 'old')],
  ['notContains on text', { body: { notContains: '50%' } }, ['where[body][notContains]=50%25'], null, leaf('body', 'notContains', /50%/i)],
  ['any', { tags: { any: ['a', 'b'] } }, ['where[tags][any]=a,b', 'where[tags][any][]=a&where[tags][any][]=b'], null, leaf('tags', 'any', ['a', 'b'])],
  ['all', { categories: { all: [ID_A, ID_B] } }, [`where[categories][all]=${ID_A},${ID_B}`], null, leaf('categories', 'all', [oid(ID_A), oid(ID_B)])],
  ['between numbers', { views: { between: [1, 10] } }, ['where[views][between]=1,10', 'where[views][between][0]=1&where[views][between][1]=10', 'where[views][between]=[1,10]'], null, leaf('views', 'between', [1, 10])],
  [
    'between dates',
    { publishedAt: { between: ['2024-01-01', '2024-12-31'] } },
    ['where[publishedAt][between]=2024-01-01,2024-12-31'],
    null,
    leaf('publishedAt', 'between', [date('2024-01-01T00:00:00Z'), date('2024-12-31T00:00:00Z')]),
  ],
];

describe('parseWhere: operators in every form', () => {
  describe.each(OPERATOR_CASES)('%s', (_label, json, bracketForms, filterForm, expected) => {
    it('JSON object', () => expect(where(json)).toEqual(expected));
    it('JSON string (URL form)', () => expect(where(JSON.stringify(json))).toEqual(expected));
    it('JSON string through qs', () => expect(bracket(`where=${encodeURIComponent(JSON.stringify(json))}`)).toEqual(expected));
    if (bracketForms.length > 0) {
      it.each(bracketForms)('bracket form %s', (query) => expect(bracket(query)).toEqual(expected));
    }
    if (filterForm !== null) it(`Form C ${filterForm}`, () => expect(filter(filterForm)).toEqual(expected));
  });

  it('accepts a field-level operator object given as JSON text in bracket form', () => {
    expect(bracket(`where[views]=${encodeURIComponent('{"gt":5,"lt":9}')}`)).toEqual({
      kind: 'and',
      nodes: [leaf('views', 'gt', 5), leaf('views', 'lt', 9)],
    });
  });

  it('compares text that merely starts with "{" with eq', () => {
    expect(bracket('where[title]={draft')).toEqual(leaf('title', 'eq', '{draft'));
  });

  it('accepts Dates and ObjectIds from the local API', () => {
    const id = new Types.ObjectId();
    const when = new Date('2024-01-01T00:00:00Z');
    expect(where({ author: id, publishedAt: { gt: when } })).toEqual({
      kind: 'and',
      nodes: [leaf('author', 'eq', id), leaf('publishedAt', 'gt', when)],
    });
  });

  it('escapes every regex metacharacter in like text', () => {
    const node = where({ title: { like: '.*+?^${}()|[]\\/' } }) as { value: RegExp };
    expect(node.value.test('x.*+?^${}()|[]\\/y')).toBe(true);
    expect(node.value.test('anything')).toBe(false);
  });

  it('anchors like patterns and matches across lines, ignoring case', () => {
    const node = where({ body: { like: 'a%z' } }) as { value: RegExp };
    expect(node.value.test('A\nmiddle\nZ')).toBe(true);
    expect(node.value.test('xa z')).toBe(false);
  });
});

describe('parseWhere: structure', () => {
  it.each([[undefined], [null], [''], ['  '], [{}], ['{}']])('%p constrains nothing', (input) => expect(where(input)).toBeUndefined());

  it('ANDs several fields in one object', () => {
    expect(where({ title: 'a', views: { gt: 1 } })).toEqual({ kind: 'and', nodes: [leaf('title', 'eq', 'a'), leaf('views', 'gt', 1)] });
  });

  it('ANDs several operators on one field', () => {
    expect(bracket('where[views][gte]=1&where[views][lte]=9')).toEqual({
      kind: 'and',
      nodes: [leaf('views', 'gte', 1), leaf('views', 'lte', 9)],
    });
  });

  it.each(['or', 'OR'])('%s becomes an or node', (key) => {
    expect(where({ [key]: [{ title: 'a' }, { views: { gt: 1 } }] })).toEqual({
      kind: 'or',
      nodes: [leaf('title', 'eq', 'a'), leaf('views', 'gt', 1)],
    });
  });

  it.each(['and', 'AND'])('%s becomes an and node', (key) => {
    expect(where({ [key]: [{ title: 'a' }, { views: { gt: 1 } }] })).toEqual({
      kind: 'and',
      nodes: [leaf('title', 'eq', 'a'), leaf('views', 'gt', 1)],
    });
  });

  it('nests compounds, in bracket form too', () => {
    const expected = {
      kind: 'or',
      nodes: [leaf('title', 'eq', 'a'), { kind: 'and', nodes: [leaf('views', 'gt', 1), leaf('published', 'eq', true)] }],
    };
    expect(where({ or: [{ title: 'a' }, { and: [{ views: { gt: 1 } }, { published: true }] }] })).toEqual(expected);
    expect(
      bracket('where[or][0][title]=a&where[or][1][and][0][views][gt]=1&where[or][1][and][1][published]=true'),
    ).toEqual(expected);
  });

  it('flattens a compound of one and nested compounds of the same kind', () => {
    expect(where({ or: [{ title: 'a' }] })).toEqual(leaf('title', 'eq', 'a'));
    expect(where({ and: [{ title: 'a' }, { and: [{ views: 1 }, { published: true }] }] })).toEqual({
      kind: 'and',
      nodes: [leaf('title', 'eq', 'a'), leaf('views', 'eq', 1), leaf('published', 'eq', true)],
    });
  });

  it('reads compounds past qs arrayLimit (objects with numeric keys) in index order', () => {
    const raw = parseQs('where[or][150][title]=b&where[or][101][title]=a');
    expect(raw).toEqual({ where: { or: { 150: { title: 'b' }, 101: { title: 'a' } } } });
    expect(where(raw.where)).toEqual({ kind: 'or', nodes: [leaf('title', 'eq', 'a'), leaf('title', 'eq', 'b')] });
  });

  it('treats an empty or as matching nothing and an empty and as matching everything', () => {
    expect(where({ or: [] })).toEqual({ kind: 'const', value: false });
    expect(where({ and: [] })).toBeUndefined();
    expect(where({ title: 'a', or: [] })).toEqual({ kind: 'const', value: false });
    expect(where({ or: [{}, { title: 'a' }] })).toBeUndefined();
  });

  it('accepts 10 levels of nesting and 200 conditions', () => {
    let nested: Record<string, unknown> = { title: 'x' };
    for (let level = 0; level < 10; level += 1) nested = { or: [nested] };
    expect(where(nested)).toEqual(leaf('title', 'eq', 'x'));
    const many = { or: Array.from({ length: 200 }, (_, index) => ({ views: index })) };
    expect((where(many) as { nodes: unknown[] }).nodes).toHaveLength(200);
  });

  it('accepts 1000 values in a list', () => {
    const values = Array.from({ length: 1000 }, (_, index) => index);
    expect(where({ views: { in: values } })).toEqual(leaf('views', 'in', values));
  });
});

describe('parseWhere: relationship paths', () => {
  // Every hop of a path carries the whole path as the client wrote it (checked in its own test below).
  const relation = (fieldName: string, relationTo: string, inner: WhereNode, collection = posts): WhereNode => ({
    kind: 'relation',
    field: collection.fields[fieldName],
    relationTo,
    where: inner,
    path: expect.any(String) as string,
  });

  it('records the client path on every hop, for error messages', () => {
    const node = where({ or: [{ 'author.company.name': 'Acme' }, { title: 'x' }] }) as Extract<WhereNode, { kind: 'or' }>;
    expect(node.nodes[0]).toMatchObject({ path: 'where.or.0.author.company.name', where: { path: 'where.or.0.author.company.name' } });
    expect(bracket('where[author.name][eq]=Ann')).toMatchObject({ path: 'where.author.name' });
    expect(filter('filter=author.name:Ann')).toMatchObject({ path: 'filter.author.name' });
  });

  it('turns author.name into a relation node parsed against authors', () => {
    const expected = relation('author', 'authors', leaf('name', 'eq', 'Ann', authors));
    expect(where({ 'author.name': { eq: 'Ann' } })).toEqual(expected);
    expect(where({ 'author.name': 'Ann' })).toEqual(expected);
    expect(bracket('where[author.name][eq]=Ann')).toEqual(expected);
    expect(filter('filter=author.name:Ann')).toEqual(expected);
  });

  it('goes through hasMany relationships', () => {
    expect(where({ 'categories.name': { like: 'new%' } })).toEqual(
      relation('categories', 'categories', leaf('name', 'like', /^new[\s\S]*$/i, categories)),
    );
  });

  it('recurses through several relationships', () => {
    expect(where({ 'author.company.name': { eq: 'Acme' } })).toEqual(
      relation('author', 'authors', relation('company', 'companies', leaf('name', 'eq', 'Acme', companies), authors)),
    );
  });

  it('keeps several conditions on one relation as separate relation nodes', () => {
    expect(where({ 'author.name': 'Ann', 'author.email': { like: '%@x.io' } })).toEqual({
      kind: 'and',
      nodes: [
        relation('author', 'authors', leaf('name', 'eq', 'Ann', authors)),
        relation('author', 'authors', leaf('email', 'like', /^[\s\S]*@x\.io$/i, authors)),
      ],
    });
  });

  it('casts by the related field type', () => {
    const error = rejectionOf(() => where({ 'author.company.id': { eq: 'nope' } }));
    expect(describeRejection(error)).toEqual(
      expectedRejection('where.author.company.id.eq', '"nope" is not a valid id', 'invalid_id'),
    );
  });

  it('follows upload fields into the uploads collection when the registry has one', () => {
    const uploads = registryWithUploads.get('_uploads');
    const withUploads = parseWhere({ 'author.avatar.filename': 'a.png' }, posts, registryWithUploads);
    expect(withUploads).toEqual({
      kind: 'relation',
      field: posts.fields.author,
      relationTo: 'authors',
      where: {
        kind: 'relation',
        field: authors.fields.avatar,
        relationTo: '_uploads',
        where: leaf('filename', 'eq', 'a.png', uploads),
        path: 'where.author.avatar.filename',
      },
      path: 'where.author.avatar.filename',
    });
  });

  it('lets a trusted where reach hidden fields of related collections, and marks its relation nodes trusted', () => {
    expect(where({ 'author.passwordHash': { exists: true } }, true)).toEqual({
      ...relation('author', 'authors', leaf('passwordHash', 'exists', true, authors)),
      trusted: true,
    });
    expect(where({ 'author.company.name': 'Acme' }, true)).toEqual({
      ...relation('author', 'authors', { ...relation('company', 'companies', leaf('name', 'eq', 'Acme', companies), authors), trusted: true } as WhereNode),
      trusted: true,
    });
    expect(where({ 'author.name': 'x' })).not.toHaveProperty('trusted');
  });
});

describe('parseWhere: hidden fields', () => {
  it('are unknown to clients, exactly like a field that does not exist', () => {
    const hidden = describeRejection(rejectionOf(() => where({ secret: 'x' })));
    expect(hidden).toEqual(expectedRejection('where.secret', 'unknown field', 'unknown_field'));
    const missing = describeRejection(rejectionOf(() => where({ nothing: 'x' })));
    expect(missing).toEqual(expectedRejection('where.nothing', 'unknown field', 'unknown_field'));
  });

  it('are usable by trusted (access-function) constraints', () => {
    expect(where({ secret: { eq: 'x' } }, true)).toEqual(leaf('secret', 'eq', 'x'));
  });
});

// [label, where input, error path, message, code]
const REJECTIONS: Array<[string, unknown, string, string, string]> = [
  ['a JSON array', '[{"title":"a"}]', 'where', 'expected a JSON object of conditions', 'invalid_where'],
  ['a JSON scalar', '5', 'where', 'expected a JSON object of conditions', 'invalid_where'],
  ['a number', 5, 'where', 'expected a JSON object of conditions', 'invalid_where'],
  ['a list of where strings', ['{}', '{}'], 'where', 'expected a JSON object of conditions', 'invalid_where'],
  ['unknown operator', { title: { regex: '.*' } }, 'where.title.regex', 'unknown operator "regex" (known operators: eq, neq, gt, gte, lt, lte, in, nin, like, nlike, exists, contains, notContains, any, all, between)', 'unknown_operator'],
  ['compound inside a field', { title: { or: [] } }, 'where.title.or', 'unknown operator "or" (known operators: eq, neq, gt, gte, lt, lte, in, nin, like, nlike, exists, contains, notContains, any, all, between)', 'unknown_operator'],
  ['$ key at the top', { $where: 'sleep(1000)' }, 'where.$where', 'keys starting with "$" are not allowed', 'forbidden_key'],
  ['$ key as an operator', { title: { $ne: 'x' } }, 'where.title.$ne', 'keys starting with "$" are not allowed', 'forbidden_key'],
  ['$ key inside a value', { title: { eq: { $ne: 1 } } }, 'where.title.eq.$ne', 'keys starting with "$" are not allowed', 'forbidden_key'],
  ['$ key inside a list', { views: { in: [{ $gt: 1 }] } }, 'where.views.in.0.$gt', 'keys starting with "$" are not allowed', 'forbidden_key'],
  ['$ key inside or', { or: [{ $expr: {} }] }, 'where.or.0.$expr', 'keys starting with "$" are not allowed', 'forbidden_key'],
  ['$ key as a field (JSON string)', '{"$or":[]}', 'where.$or', 'keys starting with "$" are not allowed', 'forbidden_key'],
  ['$ key in a JSON field value', { title: '{"$ne":1}' }, 'where.title.$ne', 'keys starting with "$" are not allowed', 'forbidden_key'],
  ['$ key in a JSON list value', { views: { in: '[{"$gt":1}]' } }, 'where.views.in.0.$gt', 'keys starting with "$" are not allowed', 'forbidden_key'],
  ['__proto__ (JSON)', '{"__proto__":{"x":1}}', 'where.__proto__', 'the key "__proto__" is not allowed', 'forbidden_key'],
  ['constructor', { constructor: { prototype: 1 } }, 'where.constructor', 'the key "constructor" is not allowed', 'forbidden_key'],
  ['prototype in a value', { title: { eq: { prototype: 1 } } }, 'where.title.eq.prototype', 'the key "prototype" is not allowed', 'forbidden_key'],
  ['an object where a scalar is expected', { title: { eq: { a: 1 } } }, 'where.title.eq', '{"a":1} is not a string', 'invalid_type'],
  ['a bare list', { title: ['a', 'b'] }, 'where.title', 'a bare list is ambiguous: use an operator such as "in" or "all"', 'invalid_value'],
  ['no operator', { title: {} }, 'where.title', 'expected at least one operator', 'invalid_where'],
  ['unknown field', { nope: 1 }, 'where.nope', 'unknown field', 'unknown_field'],
  ['inherited property name', { toString: 1 }, 'where.toString', 'unknown field', 'unknown_field'],
  ['hidden field', { secret: { exists: true } }, 'where.secret', 'unknown field', 'unknown_field'],
  ['hidden field of a relation', { 'author.passwordHash': 'x' }, 'where.author.passwordHash', 'unknown field', 'unknown_field'],
  ['dotted into a non-relation', { 'title.length': 1 }, 'where.title.length', 'unknown field', 'unknown_field'],
  ['dotted into an unknown related field', { 'author.nope': 1 }, 'where.author.nope', 'unknown field', 'unknown_field'],
  ['upload without an uploads collection', { 'author.avatar.filename': 'a' }, 'where.author.avatar.filename', 'unknown field', 'unknown_field'],
  ['compound not a list', { or: 'x' }, 'where.or', 'expected an array of conditions', 'invalid_where'],
  ['compound item not an object', { or: ['x'] }, 'where.or.0', 'expected an object of conditions', 'invalid_where'],
  ['gt on boolean', { published: { gt: true } }, 'where.published.gt', 'operator "gt" is not valid on a boolean field', 'invalid_operator'],
  ['lte on boolean', { published: { lte: 1 } }, 'where.published.lte', 'operator "lte" is not valid on a boolean field', 'invalid_operator'],
  ['gt on json', { meta: { gt: 1 } }, 'where.meta.gt', 'operator "gt" is not valid on a json field (only "exists" is)', 'invalid_operator'],
  ['eq on json', { meta: { a: 1 } }, 'where.meta.a', 'unknown operator "a" (known operators: eq, neq, gt, gte, lt, lte, in, nin, like, nlike, exists, contains, notContains, any, all, between)', 'unknown_operator'],
  ['bare eq on json', { meta: 'x' }, 'where.meta.eq', 'operator "eq" is not valid on a json field (only "exists" is)', 'invalid_operator'],
  ['like on number', { views: { like: '1%' } }, 'where.views.like', 'operator "like" is not valid on a number field', 'invalid_operator'],
  ['nlike on relationship', { author: { nlike: 'a' } }, 'where.author.nlike', 'operator "nlike" is not valid on a relationship field', 'invalid_operator'],
  ['contains on number', { views: { contains: 1 } }, 'where.views.contains', 'operator "contains" is not valid on a number field', 'invalid_operator'],
  ['notContains on date', { publishedAt: { notContains: 1 } }, 'where.publishedAt.notContains', 'operator "notContains" is not valid on a date field', 'invalid_operator'],
  ['any on a scalar field', { status: { any: ['a'] } }, 'where.status.any', 'operator "any" is not valid on a select field', 'invalid_operator'],
  ['all on a scalar field', { title: { all: ['a'] } }, 'where.title.all', 'operator "all" is not valid on a text field', 'invalid_operator'],
  ['between on text', { title: { between: ['a', 'b'] } }, 'where.title.between', 'operator "between" is not valid on a text field', 'invalid_operator'],
  ['between on text array', { tags: { between: ['a', 'b'] } }, 'where.tags.between', 'operator "between" is not valid on an array field', 'invalid_operator'],
  ['between on hasMany', { categories: { between: [ID_A, ID_B] } }, 'where.categories.between', 'operator "between" is not valid on a hasMany relationship field', 'invalid_operator'],
  ['between with one value', { views: { between: [1] } }, 'where.views.between', 'expected exactly two values [start, end]', 'invalid_value'],
  ['between with three values', { views: { between: '1,2,3' } }, 'where.views.between', 'expected exactly two values [start, end]', 'invalid_value'],
  ['between with a bad bound', { views: { between: [1, 'x'] } }, 'where.views.between.1', '"x" is not a number', 'invalid_type'],
  ['between with null', { publishedAt: { between: [null, '2024-01-01'] } }, 'where.publishedAt.between.0', 'null is not a date', 'invalid_date'],
  ['gt null', { views: { gt: null } }, 'where.views.gt', 'null is not a number', 'invalid_type'],
  ['number cast', { views: { gt: 'abc' } }, 'where.views.gt', '"abc" is not a number', 'invalid_type'],
  ['empty number', { views: '' }, 'where.views.eq', '"" is not a number', 'invalid_type'],
  ['boolean cast', { published: 'yes' }, 'where.published.eq', '"yes" is not a boolean', 'invalid_type'],
  ['date cast', { publishedAt: { gt: '2024-02-30' } }, 'where.publishedAt.gt', '"2024-02-30" is not a date', 'invalid_date'],
  ['id cast', { id: 'abc' }, 'where.id.eq', '"abc" is not a valid id', 'invalid_id'],
  ['relationship cast', { author: { in: [ID_A, 'x'] } }, 'where.author.in.1', '"x" is not a valid id', 'invalid_id'],
  ['element cast', { scores: { contains: 'x' } }, 'where.scores.contains', '"x" is not a number', 'invalid_type'],
  ['exists cast', { views: { exists: 'maybe' } }, 'where.views.exists', '"maybe" is not a boolean', 'invalid_value'],
  ['like null', { title: { like: null } }, 'where.title.like', 'null is not a string', 'invalid_value'],
  ['in not a list', { views: { in: { a: 1 } } }, 'where.views.in', '{"a":1} is not a list', 'invalid_value'],
  ['in malformed JSON list', { views: { in: '[1,' } }, 'where.views.in', 'malformed JSON array', 'malformed_json'],
  ['in with 1001 values', { views: { in: Array.from({ length: 1001 }, () => 1) } }, 'where.views.in', 'more than 1000 values', 'too_many_values'],
  ['any with 1001 values', { tags: { any: Array.from({ length: 1001 }, () => 'a').join(',') } }, 'where.tags.any', 'more than 1000 values', 'too_many_values'],
];

describe('parseWhere: rejections', () => {
  it.each(REJECTIONS)('%s', (_label, input, path, message, code) => {
    expect(describeRejection(rejectionOf(() => where(input)))).toEqual(expectedRejection(path, message, code));
  });

  it('rejects nesting deeper than 10 levels', () => {
    let nested: Record<string, unknown> = { title: 'x' };
    for (let level = 0; level < 11; level += 1) nested = { or: [nested] };
    const path = `where${'.or.0'.repeat(10)}.or`;
    expect(describeRejection(rejectionOf(() => where(nested)))).toEqual(
      expectedRejection(path, 'nesting deeper than 10 levels', 'too_deep'),
    );
  });

  it('rejects absurd raw nesting before interpreting it', () => {
    const deep = `${'{"a":'.repeat(40)}1${'}'.repeat(40)}`;
    expect(rejectionOf(() => where(`{"title":{"eq":${deep}}}`)).errors?.[0].code).toBe('too_deep');
  });

  it('rejects more than 200 conditions', () => {
    const many = { or: Array.from({ length: 201 }, (_, index) => ({ views: index })) };
    expect(describeRejection(rejectionOf(() => where(many)))).toEqual(
      expectedRejection('where', 'more than 200 conditions', 'too_many_conditions'),
    );
  });

  it('counts conditions across fields, operators and relation paths', () => {
    const conditions = Object.fromEntries(Array.from({ length: 67 }, (_, index) => [`${index}`, { views: { gt: 1, lt: 2 }, 'author.name': 'a' }]));
    expect(rejectionOf(() => where({ or: conditions })).errors?.[0].code).toBe('too_many_conditions');
  });

  it.each(['{"title":', '{title:"a"}', "{'title':'a'}", '{"title":"a"}}'])('rejects malformed JSON %s', (input) => {
    const error = rejectionOf(() => where(input));
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/^where: malformed JSON \(.+\)$/);
    expect(error.errors).toEqual([{ field: 'where', message: expect.stringMatching(/^malformed JSON/), code: 'malformed_json' }]);
  });

  it('caps relationship hops at 10, like nesting', () => {
    const people = describeCollections([{ slug: 'people', fields: { name: { type: 'text' }, friend: { type: 'relationship', relationTo: 'people' } } }]);
    const collection = people.get('people')!;
    const hops = (count: number) => `${'friend.'.repeat(count)}name`;
    expect(parseWhere({ [hops(10)]: 'x' }, collection, people)).toMatchObject({ kind: 'relation', relationTo: 'people' });
    expect(describeRejection(rejectionOf(() => parseWhere({ [hops(11)]: 'x' }, collection, people)))).toEqual(
      expectedRejection(`where.${hops(11)}`, 'nesting deeper than 10 levels', 'too_deep'),
    );
  });
});
