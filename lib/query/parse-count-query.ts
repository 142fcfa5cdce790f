// The query of a count (GET /<slug>/count, the local count): the list query it is the total of, read from
// the list's conditions alone. Paging, sort, selection and population shape a page, which a count has
// none of: they are ignored, not validated, as GET /:id ignores the list's parameters.
import type { CollectionDescriptor, SchemaRegistry } from '../schema/descriptors';
import { parseListQuery } from './parse-list-query';
import type { ListQuery, QueryOptions } from './types';

/** The parameters a count reads; every other one is left out before parsing. */
const COUNT_PARAMETERS = ['where', 'filter', 'search', 'includeDeleted'] as const;

/**
 * Parses `where`, `filter`, `search` and `includeDeleted` exactly as parseListQuery does (the same 400s,
 * the same relation limits) into the list query whose total the count is; its page parameters are the
 * list's defaults, and nothing reads them.
 */
export function parseCountQuery(
  raw: Record<string, unknown>,
  collection: CollectionDescriptor,
  registry: SchemaRegistry,
  options: QueryOptions,
): ListQuery {
  const conditions: Record<string, unknown> = {};
  for (const name of COUNT_PARAMETERS) if (Object.hasOwn(raw, name)) conditions[name] = raw[name];
  return parseListQuery(conditions, collection, registry, options);
}
