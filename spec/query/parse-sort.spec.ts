// `sort` in both syntaxes, mixed, with the `_id` tie-breaker, the default, and every rejection.
import { parseSort, toMongoSort } from '../../lib/query/parse-sort';
import type { SortItem } from '../../lib/query/types';
import { describeCollection } from '../../lib/schema/describe-collection';
import { describeRejection, expectedRejection, parseQs, POSTS, posts, rejectionOf } from './fixtures';

const sort = (query: string) => parseSort(parseQs(query).sort, posts);
const item = (field: string, direction: 1 | -1, path = field): SortItem => ({ field, path, direction });

describe('parseSort', () => {
  it.each<[string, SortItem[]]>([
    ['', [item('createdAt', -1), item('id', -1, '_id')]],
    ['sort=', [item('createdAt', -1), item('id', -1, '_id')]],
    ['sort=title', [item('title', 1), item('id', 1, '_id')]],
    ['sort=-views', [item('views', -1), item('id', -1, '_id')]],
    ['sort=-views,title', [item('views', -1), item('title', 1), item('id', 1, '_id')]],
    ['sort=status:asc,createdAt:desc', [item('status', 1), item('createdAt', -1), item('id', -1, '_id')]],
    ['sort=status:ASC,views:Desc', [item('status', 1), item('views', -1), item('id', -1, '_id')]],
    ['sort=-views,title:asc', [item('views', -1), item('title', 1), item('id', 1, '_id')]],
    ['sort= title , -views ', [item('title', 1), item('views', -1), item('id', -1, '_id')]],
    ['sort=title,,views', [item('title', 1), item('views', 1), item('id', 1, '_id')]],
    ['sort=title&sort=-views', [item('title', 1), item('views', -1), item('id', -1, '_id')]],
    ['sort[]=title&sort[]=-views', [item('title', 1), item('views', -1), item('id', -1, '_id')]],
    ['sort=-id', [item('id', -1, '_id')]],
    ['sort=id:asc,title', [item('id', 1, '_id'), item('title', 1)]],
    ['sort=title,id:desc', [item('title', 1), item('id', -1, '_id')]],
    ['sort=author,published,publishedAt', [item('author', 1), item('published', 1), item('publishedAt', 1), item('id', 1, '_id')]],
    ['sort=-deletedAt', [item('deletedAt', -1), item('id', -1, '_id')]],
  ])('%s', (query, expected) => expect(sort(query)).toEqual(expected));

  it('accepts arrays from the local API', () => {
    expect(parseSort(['-views', 'title:asc'], posts)).toEqual([item('views', -1), item('title', 1), item('id', 1, '_id')]);
  });

  it.each([
    ['sort=nope', 'unknown field "nope"', 'invalid_sort'],
    ['sort=-secret', 'unknown field "secret"', 'invalid_sort'],
    ['sort=author.name', 'unknown field "author.name"', 'invalid_sort'],
    ['sort=toString', 'unknown field "toString"', 'invalid_sort'],
    ['sort=$natural', 'unknown field "$natural"', 'invalid_sort'],
    ['sort=meta', 'cannot sort on json field "meta"', 'invalid_sort'],
    ['sort=tags', 'cannot sort on list field "tags"', 'invalid_sort'],
    ['sort=categories:desc', 'cannot sort on list field "categories"', 'invalid_sort'],
    ['sort=title:up', '"title:up": direction must be asc or desc', 'invalid_sort'],
    ['sort=title:', '"title:": direction must be asc or desc', 'invalid_sort'],
    ['sort=-title:desc', '"-title:desc": use either -field or field:desc', 'invalid_sort'],
    ['sort=title,-title', 'field "title" is sorted on more than once', 'duplicate_sort'],
    ['sort=views:asc,views:desc', 'field "views" is sorted on more than once', 'duplicate_sort'],
    ['sort[a][b]=1', 'expected a comma-separated list of names', 'invalid_sort'],
  ])('%s is a 400', (query, message, code) => {
    expect(describeRejection(rejectionOf(() => sort(query)))).toEqual(expectedRejection('sort', message, code));
  });

  it('refuses a non-string from the local API', () => {
    expect(rejectionOf(() => parseSort(5, posts)).errors?.[0].code).toBe('invalid_sort');
  });
});

describe('parseSort with sortable', () => {
  const sortablePosts = describeCollection({ ...POSTS, sortable: ['publishedAt', 'title'] });
  const sortOf = (query: string) => parseSort(parseQs(query).sort, sortablePosts);
  const allowed = 'sort on one of: publishedAt, title, createdAt, id';

  it.each<[string, SortItem[]]>([
    ['', [item('createdAt', -1), item('id', -1, '_id')]],
    ['sort=-publishedAt', [item('publishedAt', -1), item('id', -1, '_id')]],
    ['sort=title:asc,-publishedAt', [item('title', 1), item('publishedAt', -1), item('id', -1, '_id')]],
    ['sort=createdAt', [item('createdAt', 1), item('id', 1, '_id')]],
    ['sort=-id', [item('id', -1, '_id')]],
  ])('allows %s', (query, expected) => expect(sortOf(query)).toEqual(expected));

  it.each([
    ['sort=-views', '"views" is not sortable'],
    ['sort=title,updatedAt:desc', '"updatedAt" is not sortable'],
    // Unknown, hidden, json and list fields read alike, with the same list.
    ['sort=nope', '"nope" is not sortable'],
    ['sort=secret', '"secret" is not sortable'],
    ['sort=meta', '"meta" is not sortable'],
    ['sort=-tags', '"tags" is not sortable'],
  ])('%s is a 400 listing the allowed fields', (query, message) => {
    expect(describeRejection(rejectionOf(() => sortOf(query)))).toEqual(expectedRejection('sort', `${message}; ${allowed}`, 'invalid_sort'));
  });

  it('still refuses bad syntax and repeated fields as before', () => {
    expect(rejectionOf(() => sortOf('sort=title:up')).errors?.[0].message).toBe('"title:up": direction must be asc or desc');
    expect(rejectionOf(() => sortOf('sort=title,-title')).errors?.[0].code).toBe('duplicate_sort');
  });

  it('with sortable: [] only createdAt and id', () => {
    const strict = describeCollection({ ...POSTS, sortable: [] });
    expect(parseSort('createdAt:desc', strict)).toEqual([item('createdAt', -1), item('id', -1, '_id')]);
    expect(rejectionOf(() => parseSort('title', strict)).message).toBe('sort: "title" is not sortable; sort on one of: createdAt, id');
  });
});

describe('toMongoSort', () => {
  it('maps fields to storage paths, in order', () => {
    const result = toMongoSort(sort('sort=-views,title'));
    expect(result).toEqual({ views: -1, title: 1, _id: 1 });
    expect(Object.keys(result)).toEqual(['views', 'title', '_id']);
  });
});
