// The whole list request in one call: the union of Form A, B and C parameters parsed into
// a ListQuery. Unknown parameters are ignored, since hosts add their own (cache busters, tracking).
import type { CollectionDescriptor, SchemaRegistry } from '../schema/descriptors';
import { combineAnd } from './combine-where';
import { decodeCursor } from './cursor';
import { parseFilter } from './parse-filter';
import { chooseEnvelope, parseLimit, parsePage } from './parse-pagination';
import { parsePopulate } from './parse-populate';
import { prunePopulate } from './parse-record-query';
import { parseSearch } from './parse-search';
import { parseSelect } from './parse-select';
import { parseSort } from './parse-sort';
import { parseWhere } from './parse-where';
import { readBooleanParam } from './read-param';
import { assertRelationLimits } from './relation-limits';
import type { ListQuery, QueryOptions } from './types';

/**
 * Parses a list request's query: `raw` is `qs.parse(queryString, { depth: 10, arrayLimit: 100,
 * parameterLimit: 200 })`, or a local API object whose values may be numbers, booleans or objects.
 * Throws a 400 QueryError on the first parameter it cannot honour, and a 400 QueryTooComplexError when
 * where and filter together exceed the relation-condition limits of `options`.
 *
 * In cursor mode `page` is 1 and `count` is false (the cursor envelope carries no totals).
 */
export function parseListQuery(
  raw: Record<string, unknown>,
  collection: CollectionDescriptor,
  registry: SchemaRegistry,
  options: QueryOptions,
): ListQuery {
  const envelope = chooseEnvelope(raw, options);
  const sort = parseSort(raw.sort, collection);
  const clientWhere = parseWhere(raw.where, collection, registry);
  const filter = parseFilter(raw.filter, collection, registry);
  // Counted before any query runs: each relation hop costs one on the related collection.
  assertRelationLimits([['where', clientWhere], ['filter', filter]], options);
  const where = combineAnd(clientWhere, filter, parseSearch(raw.search, collection));
  const query: ListQuery = {
    sort,
    page: envelope === 'cursor' ? 1 : parsePage(raw),
    limit: parseLimit(raw, collection, options),
    count: readBooleanParam(raw, 'count', true) && envelope !== 'cursor',
    populate: parsePopulate(raw, collection, registry, options),
    includeDeleted: readBooleanParam(raw, 'includeDeleted', false),
    envelope,
  };
  if (where) query.where = where;
  const select = parseSelect(raw.fields, collection);
  if (select) {
    query.select = select;
    query.populate = prunePopulate(query.populate, select);
  }
  if (envelope === 'cursor') query.cursor = raw.cursor === '' ? null : decodeCursor(raw.cursor, sort, collection);
  return query;
}
