// `depth` expansion through the registry, `include` paths, their merge, and `fields` selection.
import { expandDepth, parseDepth, parseInclude, parsePopulate } from '../../lib/query/parse-populate';
import { parseSelect } from '../../lib/query/parse-select';
import { OPTIONS, describeRejection, expectedRejection, parseQs, posts, registry, registryWithUploads, rejectionOf } from './fixtures';

const populate = (query: string, maxDepth = 2) => parsePopulate(parseQs(query), posts, registry, { maxDepth });

describe('depth', () => {
  it.each([
    ['', 0],
    ['depth=0', 0],
    ['depth=2', 2],
  ])('%s -> %d', (query, expected) => expect(parseDepth(parseQs(query), 2)).toBe(expected));

  it.each([['depth=3'], ['depth=-1'], ['depth=1.5'], ['depth=x'], ['depth=']])('%s is a 400 (max 2)', (query) => {
    const value = JSON.stringify(parseQs(query).depth);
    expect(describeRejection(rejectionOf(() => parseDepth(parseQs(query), 2)))).toEqual(
      expectedRejection('depth', `${value} is not an integer from 0 to 2`, 'invalid_depth'),
    );
  });

  it('honours a configured maximum', () => {
    expect(parseDepth({ depth: 5 }, 5)).toBe(5);
    expect(rejectionOf(() => parseDepth({ depth: 1 }, 0)).errors?.[0].code).toBe('invalid_depth');
  });

  it('expands every visible relation, level by level', () => {
    expect(populate('')).toEqual({});
    expect(populate('depth=0')).toEqual({});
    expect(populate('depth=1')).toEqual({ categories: {}, author: {} });
    expect(populate('depth=2')).toEqual({ categories: {}, author: { avatar: {}, company: {} } });
  });

  it('expands into the uploads collection when the registry has one', () => {
    expect(expandDepth(posts, registryWithUploads, 3)).toEqual({ categories: {}, author: { avatar: {}, company: {} } });
  });

  it('never expands hidden relations', () => {
    const withHidden = new Map(registry);
    const hiddenAuthor = { ...posts, fields: { ...posts.fields, author: { ...posts.fields.author, hidden: true } } };
    withHidden.set('posts', hiddenAuthor);
    expect(expandDepth(hiddenAuthor, withHidden, 1)).toEqual({ categories: {} });
    expect(rejectionOf(() => parseInclude('author', hiddenAuthor, withHidden, 2)).errors?.[0].code).toBe('invalid_include');
  });
});

describe('include', () => {
  it.each([
    ['include=author', { author: {} }],
    ['include=author,categories', { author: {}, categories: {} }],
    ['include=author.avatar', { author: { avatar: {} } }],
    ['include=author.avatar,author.company', { author: { avatar: {}, company: {} } }],
    ['include=author&include=author.company', { author: { company: {} } }],
    ['include[]=categories&include[]=author', { categories: {}, author: {} }],
    ['include=', {}],
  ])('%s', (query, expected) => expect(populate(query)).toEqual(expected));

  it('merges with the depth tree', () => {
    expect(populate('depth=1&include=author.company')).toEqual({ categories: {}, author: { company: {} } });
  });

  it('is bounded by maxDepth, like depth', () => {
    expect(populate('include=author.company', 2)).toEqual({ author: { company: {} } });
    expect(describeRejection(rejectionOf(() => populate('include=author.company', 1)))).toEqual(
      expectedRejection('include', '"author.company" is deeper than the maximum depth of 1', 'invalid_include'),
    );
    expect(rejectionOf(() => populate('include=author', 0)).errors?.[0].code).toBe('invalid_include');
  });

  it('refuses a path past a relation whose collection is not in the registry', () => {
    expect(describeRejection(rejectionOf(() => populate('include=author.avatar.x', 3)))).toEqual(
      expectedRejection('include', '"author.avatar.x": "x" is not a relation', 'invalid_include'),
    );
  });

  it.each([
    ['include=title', '"title": "title" is not a relation'],
    ['include=nope', '"nope": "nope" is not a relation'],
    ['include=secret', '"secret": "secret" is not a relation'],
    ['include=author.name', '"author.name": "name" is not a relation'],
    ['include=author.passwordHash', '"author.passwordHash": "passwordHash" is not a relation'],
    ['include=author.', '"author.": "" is not a relation'],
    ['include=__proto__', '"__proto__": "__proto__" is not a relation'],
  ])('%s is a 400', (query, message) => {
    expect(describeRejection(rejectionOf(() => populate(query)))).toEqual(expectedRejection('include', message, 'invalid_include'));
  });

  it('keeps options.maxDepth from QueryOptions', () => {
    expect(parsePopulate({ depth: '2' }, posts, registry, OPTIONS)).toEqual(populate('depth=2'));
  });
});

describe('fields (select)', () => {
  const select = (query: string) => parseSelect(parseQs(query).fields, posts);

  it.each([
    ['', undefined],
    ['fields=', undefined],
    ['fields=title', ['id', 'title']],
    ['fields=title,views', ['id', 'title', 'views']],
    ['fields=id', ['id']],
    ['fields=views,id,title,views', ['id', 'views', 'title']],
    ['fields=title&fields=author', ['id', 'title', 'author']],
    ['fields[]=meta&fields[]=createdAt', ['id', 'meta', 'createdAt']],
  ])('%s', (query, expected) => expect(select(query)).toEqual(expected));

  it.each([
    ['fields=nope', 'unknown field "nope"'],
    ['fields=title,secret', 'unknown field "secret"'],
    ['fields=author.name', 'unknown field "author.name"'],
    ['fields=constructor', 'unknown field "constructor"'],
    ['fields[a][b]=1', 'expected a comma-separated list of names'],
  ])('%s is a 400', (query, message) => {
    expect(describeRejection(rejectionOf(() => select(query)))).toEqual(expectedRejection('fields', message, 'invalid_fields'));
  });
});
