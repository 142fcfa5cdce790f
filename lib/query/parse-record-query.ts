// The query of a single-record GET: only what shapes one record (depth/include, fields,
// includeDeleted). List-only parameters (page, sort, where...) are ignored here, not validated.
import type { CollectionDescriptor, SchemaRegistry } from '../schema/descriptors';
import { parsePopulate } from './parse-populate';
import { parseSelect } from './parse-select';
import { readBooleanParam } from './read-param';
import type { PopulateTree, QueryOptions, RecordQuery } from './types';

/** Drops population of relations the selection leaves out: their queries would be thrown away. */
export function prunePopulate(tree: PopulateTree, select: readonly string[] | undefined): PopulateTree {
  if (!select) return tree;
  return Object.fromEntries(Object.entries(tree).filter(([field]) => select.includes(field)));
}

/** Parses `depth`, `include`, `fields` and `includeDeleted` for GET /:id and the local findById. */
export function parseRecordQuery(
  raw: Record<string, unknown>,
  collection: CollectionDescriptor,
  registry: SchemaRegistry,
  options: QueryOptions,
): RecordQuery {
  const select = parseSelect(raw.fields, collection);
  const query: RecordQuery = {
    populate: prunePopulate(parsePopulate(raw, collection, registry, options), select),
    includeDeleted: readBooleanParam(raw, 'includeDeleted', false),
  };
  if (select) query.select = select;
  return query;
}
