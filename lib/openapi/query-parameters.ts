// The query parameters of the list and single-record query languages as OpenAPI parameters: the union
// of the three dialects (where/depth/limit, include/perPage/cursor, filter/fields); a count's are the
// list's conditions.
import type { ParameterObject } from 'openapi3-ts/oas31';
import type { QueryOptions } from '../config/resolve-config';
import type { QueryParameter } from '../http/route-table';
import { allowedSorts, type CollectionDescriptor, type FieldDescriptor, type SchemaRegistry } from '../schema/descriptors';

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

/** A collection's fields an example may name: visible to every caller (no read rule), stored by the collection. */
function exampleFields(collection: CollectionDescriptor): FieldDescriptor[] {
  return Object.values(collection.fields).filter((f) => !f.hidden && !f.system && f.config.access?.read === undefined);
}

/** `author,author.avatar`: the collection's first relation, and the first of the collection it points to (when there is one). */
function includeExample(collection: CollectionDescriptor | undefined, registry: SchemaRegistry): string | undefined {
  if (!collection) return '`include=author,author.avatar`';
  const relation = exampleFields(collection).find((f) => f.type === 'relationship' || f.type === 'upload');
  if (!relation) return undefined;
  const related = relation.type === 'relationship' && relation.relationTo ? registry.get(relation.relationTo) : undefined;
  const nested = related && exampleFields(related).find((f) => f.type === 'relationship' || f.type === 'upload');
  return `\`include=${relation.name}${nested ? `,${relation.name}.${nested.name}` : ''}\``;
}

/** The parameters that shape each record: population, selection, soft-deleted records (where there are any). */
function recordParameters(options: QueryOptions, collection: CollectionDescriptor | undefined, registry: SchemaRegistry): ParameterObject[] {
  const include = includeExample(collection, registry);
  return [
    query('depth', `Populate relationship and upload fields this many levels deep (0 leaves ids; at most ${options.maxDepth}).`, { type: 'integer', minimum: 0, maximum: options.maxDepth }),
    query('include', `Comma list of relations to populate, dotted for nested ones${include ? ` (${include})` : ''}.`, { type: 'string' }),
    query('fields', 'Comma list of fields to return (`id` is always included). The records then carry only these, though the record schema, which describes answers without `fields`, requires every field.', { type: 'string' }),
    ...deletedParameters(collection),
  ];
}

/** Example conditions: a text field's `like` (else a select's or a boolean's `eq`), and a number's `gt` or a date's `gte` (createdAt when there is no other). */
function conditionExamples(collection: CollectionDescriptor | undefined): { field: string; op: string; value: string | number | boolean }[] {
  if (!collection) return [{ field: 'title', op: 'like', value: 'foo' }, { field: 'views', op: 'gt', value: 5 }];
  const fields = exampleFields(collection).filter((f) => !f.isArray);
  const text = fields.find((f) => ['text', 'textarea', 'email'].includes(f.type));
  const select = fields.find((f) => f.type === 'select' && f.options?.length);
  const option = select?.options?.[0];
  const flag = fields.find((f) => f.type === 'boolean');
  const number = fields.find((f) => f.type === 'number');
  const date = fields.find((f) => f.type === 'date');
  return [
    text ? { field: text.name, op: 'like', value: 'foo' } : select && option !== undefined ? { field: select.name, op: 'eq', value: option } : flag ? { field: flag.name, op: 'eq', value: true } : undefined,
    number ? { field: number.name, op: 'gt', value: 5 } : { field: date?.name ?? 'createdAt', op: 'gte', value: '2025-01-01' },
  ].filter((example) => example !== undefined);
}

/** The conditions of a list, in every dialect: which records it (or a count, or a bulk write) takes; examples name the collection's fields. */
function conditionParameters(collection: CollectionDescriptor | undefined): ParameterObject[] {
  const examples = conditionExamples(collection);
  const json = JSON.stringify(Object.fromEntries(examples.map(({ field, op, value }) => [field, { [op]: value }])));
  const brackets = examples.map(({ field, op, value }) => `where[${field}][${op}]=${value}`).join('&');
  const [first] = examples;
  const filter = first.op === 'like' || first.op === 'eq' ? `\`filter=${first.field}:${first.value}\`` : `\`filter=${first.field}:>${first.value}\``;
  // A field with a read rule is searched for the callers who may read it: named, as the record schema names it.
  const searched = collection?.searchFields;
  return [
    query(
      'where',
      `Filter, as a URL-encoded JSON object: \`${json}\`. The bracket form is accepted too: \`${brackets}\`. ` +
        'Operators: eq neq gt gte lt lte in nin like nlike exists contains notContains any all between; `and`/`or` (or `AND`/`OR`) take arrays of conditions; dotted paths filter through relationships.',
      { type: 'string' },
    ),
    query('filter', `Repeatable \`field:value\` condition (equals), or \`field:>value\` with \`>\`, \`>=\`, \`<\`, \`<=\`, \`!=\` (${filter}); ANDed with \`where\`.`, { type: 'array', items: { type: 'string' } }, { style: 'form', explode: true }),
    query(
      'search',
      'Case-insensitive substring match: records where any search field contains the text (no word stemming or ranking)' +
        (searched === undefined ? '.' : searched.length ? `; this collection searches ${searched.map((name) => `\`${name}\``).join(', ')}.` : '; this collection has no search fields.') +
        ' ANDed with the other conditions.',
      { type: 'string' },
    ),
  ];
}

/** The `sort` parameter's description: with `sortable`, the fields a sort may name. */
function sortDescription(collection: CollectionDescriptor | undefined): string {
  const syntax = 'Comma list: `-createdAt,id` or `createdAt:desc,id:asc`. Default `-createdAt`. The id is always the final tie-breaker.';
  const allowed = collection && allowedSorts(collection);
  return allowed ? `${syntax} Sortable fields: ${allowed.map((name) => `\`${name}\``).join(', ')}; any other is a 400.` : syntax;
}

/** The list parameters; page sizes are bounded by the collection's maxLimit when it is known. */
function listParameters(options: QueryOptions, collection: CollectionDescriptor | undefined, registry: SchemaRegistry): ParameterObject[] {
  const { defaultLimit, maxLimit } = collection?.pagination ?? { defaultLimit: undefined, maxLimit: undefined };
  // Defaults are told in words, not as `default`: Swagger UI would fill them in and send them, and a
  // page or limit the user did not choose changes the envelope (or clashes with a cursor).
  const size = { ...positive, ...(maxLimit !== undefined && options.overLimit === 'reject' && { maximum: maxLimit }) };
  const sizeDefault = defaultLimit === undefined ? '' : ` Default ${defaultLimit}.`;
  const over = maxLimit === undefined ? '' : options.overLimit === 'reject' ? ` Above ${maxLimit} is a 400.` : ` Above ${maxLimit} is clamped to ${maxLimit}.`;
  return [
    ...conditionParameters(collection),
    query('sort', sortDescription(collection), { type: 'string' }),
    query('page', '1-based page number (not with `cursor`). Default 1.', positive),
    query('limit', `Page size; answers in the docs envelope unless \`perPage\` is given too.${sizeDefault}${over}`, size),
    query('perPage', `Page size (preferred over \`limit\`).${sizeDefault}${over}`, size),
    query('cursor', 'Keyset pagination: empty for the first page, then `meta.nextCursor`/`meta.prevCursor`; answers in the cursor envelope.', { type: 'string' }),
    ...recordParameters(options, collection, registry),
    query('count', 'false skips the total: the envelope then leaves out total/totalDocs/totalPages. Default true.', { type: 'boolean' }),
  ];
}

/** The OpenAPI parameters of a route's `query` declaration; `collection` is the one the route serves, when known. */
export function queryParameters(
  declared: 'list' | 'record' | 'count' | ReadonlyArray<QueryParameter | 'conditions'> | undefined,
  options: QueryOptions,
  collection: CollectionDescriptor | undefined,
  registry: SchemaRegistry,
): ParameterObject[] {
  if (declared === undefined) return [];
  if (declared === 'list') return listParameters(options, collection, registry);
  if (declared === 'record') return recordParameters(options, collection, registry);
  // A count takes the list's conditions; what shapes a page it ignores, so the document does not offer it.
  if (declared === 'count') return [...conditionParameters(collection), ...deletedParameters(collection)];
  return declared.flatMap((p) => (p === 'conditions' ? conditionParameters(collection) : [query(p.name, p.description, p.schema)]));
}
