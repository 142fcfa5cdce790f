// The query parameters of the list and single-record query languages as OpenAPI parameters: the union
// of the three dialects (where/depth/limit, include/perPage/cursor, filter/fields); a count's are the
// list's conditions.
import type { ParameterObject } from 'openapi3-ts/oas31';
import type { QueryOptions } from '../config/resolve-config';
import type { QueryParameter } from '../http/route-table';
import { allowedSorts, type CollectionDescriptor } from '../schema/descriptors';

const query = (name: string, description: string, schema: ParameterObject['schema'], extra: Partial<ParameterObject> = {}): ParameterObject => ({
  name,
  in: 'query',
  description,
  schema,
  ...extra,
});

const positive = { type: 'integer', minimum: 1 } as const;

/** `includeDeleted`, where there are soft-deleted records (or the collection is not known). */
function deletedParameters(collection: CollectionDescriptor | undefined): ParameterObject[] {
  const deleted = !collection || collection.softDelete;
  return deleted ? [query('includeDeleted', 'true also returns soft-deleted records (for callers allowed to see them). Default false.', { type: 'boolean' })] : [];
}

/** The parameters that shape each record: population, selection, soft-deleted records (where there are any). */
function recordParameters(options: QueryOptions, collection: CollectionDescriptor | undefined): ParameterObject[] {
  return [
    query('depth', `Populate relationship and upload fields this many levels deep (0 leaves ids; at most ${options.maxDepth}).`, { type: 'integer', minimum: 0, maximum: options.maxDepth }),
    query('include', 'Comma list of relations to populate, dotted for nested ones (`author,author.avatar`).', { type: 'string' }),
    query('fields', 'Comma list of fields to return (`id` is always included). The records then carry only these, though the record schema, which describes answers without `fields`, requires every field.', { type: 'string' }),
    ...deletedParameters(collection),
  ];
}

/** The conditions of a list, in every dialect: which records it (or a count) takes. */
function conditionParameters(): ParameterObject[] {
  return [
    query(
      'where',
      'Filter, as a URL-encoded JSON object: `{"title":{"like":"foo"},"views":{"gt":5}}`. The bracket form is accepted too: `where[title][like]=foo&where[views][gt]=5`. ' +
        'Operators: eq neq gt gte lt lte in nin like nlike exists contains notContains any all between; `and`/`or` (or `AND`/`OR`) take arrays of conditions; dotted paths filter through relationships.',
      { type: 'string' },
    ),
    query('filter', 'Repeatable `field:value` condition (equals), or `field:>value` with `>`, `>=`, `<`, `<=`, `!=`; ANDed with `where`.', { type: 'array', items: { type: 'string' } }, { style: 'form', explode: true }),
    query('search', 'Case-insensitive text search over the collection\'s search fields.', { type: 'string' }),
  ];
}

/** The `sort` parameter's description: with `sortable`, the fields a sort may name. */
function sortDescription(collection: CollectionDescriptor | undefined): string {
  const syntax = 'Comma list: `-createdAt,id` or `createdAt:desc,id:asc`. Default `-createdAt`. The id is always the final tie-breaker.';
  const allowed = collection && allowedSorts(collection);
  return allowed ? `${syntax} Sortable fields: ${allowed.map((name) => `\`${name}\``).join(', ')}; any other is a 400.` : syntax;
}

/** The list parameters; page sizes are bounded by the collection's maxLimit when it is known. */
function listParameters(options: QueryOptions, collection: CollectionDescriptor | undefined): ParameterObject[] {
  const { defaultLimit, maxLimit } = collection?.pagination ?? { defaultLimit: undefined, maxLimit: undefined };
  // Defaults are told in words, not as `default`: Swagger UI would fill them in and send them, and a
  // page or limit the user did not choose changes the envelope (or clashes with a cursor).
  const size = { ...positive, ...(maxLimit !== undefined && options.overLimit === 'reject' && { maximum: maxLimit }) };
  const sizeDefault = defaultLimit === undefined ? '' : ` Default ${defaultLimit}.`;
  const over = maxLimit === undefined ? '' : options.overLimit === 'reject' ? ` Above ${maxLimit} is a 400.` : ` Above ${maxLimit} is clamped to ${maxLimit}.`;
  return [
    ...conditionParameters(),
    query('sort', sortDescription(collection), { type: 'string' }),
    query('page', '1-based page number (not with `cursor`). Default 1.', positive),
    query('limit', `Page size; answers in the docs envelope unless \`perPage\` is given too.${sizeDefault}${over}`, size),
    query('perPage', `Page size (preferred over \`limit\`).${sizeDefault}${over}`, size),
    query('cursor', 'Keyset pagination: empty for the first page, then `meta.nextCursor`/`meta.prevCursor`; answers in the cursor envelope.', { type: 'string' }),
    ...recordParameters(options, collection),
    query('count', 'false skips the total: the envelope then leaves out total/totalDocs/totalPages. Default true.', { type: 'boolean' }),
  ];
}

/** The OpenAPI parameters of a route's `query` declaration. */
export function queryParameters(
  declared: 'list' | 'record' | 'count' | readonly QueryParameter[] | undefined,
  options: QueryOptions,
  collection: CollectionDescriptor | undefined,
): ParameterObject[] {
  if (declared === undefined) return [];
  if (declared === 'list') return listParameters(options, collection);
  if (declared === 'record') return recordParameters(options, collection);
  // A count takes the list's conditions; what shapes a page it ignores, so the document does not offer it.
  if (declared === 'count') return [...conditionParameters(), ...deletedParameters(collection)];
  return declared.map((p) => query(p.name, p.description, p.schema));
}
