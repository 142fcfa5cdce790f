// parseCountQuery: a count reads the list's conditions (where, filter, search, includeDeleted) exactly as
// parseListQuery does, refusing what it refuses, and ignores every parameter that shapes a page.
import { parseCountQuery } from '../../lib/query/parse-count-query';
import { parseListQuery } from '../../lib/query/parse-list-query';
import { OPTIONS, describeRejection, parseQs, posts, registry, rejectionOf } from './fixtures';

const count = (query: string) => parseCountQuery(parseQs(query), posts, registry, OPTIONS);
const list = (query: string) => parseListQuery(parseQs(query), posts, registry, OPTIONS);

describe('parseCountQuery', () => {
  it('is the list query of its conditions, with the list\'s defaults for the page', () => {
    const conditions = 'where[views][gt]=5&filter=status:published&search=hello&includeDeleted=true';
    expect(count(conditions)).toEqual(list(conditions));
    expect(count('')).toEqual(list(''));
  });

  it('ignores paging, sort, selection, population, cursor and count, valid or not', () => {
    const page = 'page=abc&limit=-1&perPage=100000&sort=nope&fields=nope&depth=99&include=nope&cursor=garbage&count=maybe';
    expect(count(`${page}&where[views][gt]=5`)).toEqual(list('where[views][gt]=5'));
    expect(count(page)).toEqual(list(''));
  });

  it.each([
    ['where={"views":', 'where'],
    ['where[secret]=x', 'where.secret'],
    ['filter=views', 'filter'],
    ['includeDeleted=maybe', 'includeDeleted'],
  ])('refuses %s as the list does', (query, field) => {
    const refused = describeRejection(rejectionOf(() => count(query)));
    expect(refused).toEqual(describeRejection(rejectionOf(() => list(query))));
    expect(refused.message.startsWith(`${field}: `)).toBe(true);
  });

  it('takes local API values as the list does', () => {
    const raw = { where: { views: { gt: 5 } }, filter: ['status:published'], includeDeleted: true, sort: 42 };
    expect(parseCountQuery(raw, posts, registry, OPTIONS)).toEqual(parseListQuery({ where: raw.where, filter: raw.filter, includeDeleted: true }, posts, registry, OPTIONS));
  });
});
