// Stable keys for normalised queries: two queries get the same key exactly when they ask the same
// question, whatever textual form (parameter order, list order, dialect) the client used. Caches key on it.
import type { ListQuery, PopulateTree, RecordQuery, WhereNode } from './types';

/** Operators whose list value is a set: the order of its items does not change the answer. */
const SET_OPERATORS = new Set(['in', 'nin', 'any', 'all']);

/** A type-tagged encoding of one cast value, so `1`, `"1"`, a date and an ObjectId never collide. */
function valueKey(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'undef';
  if (value instanceof Date) return `d:${Number.isNaN(value.getTime()) ? 'NaN' : value.toISOString()}`;
  if (value instanceof RegExp) return `r:${JSON.stringify(value.source)}/${Array.from(value.flags).sort().join('')}`;
  if (Array.isArray(value)) return `[${value.map(valueKey).join(',')}]`;
  switch (typeof value) {
    case 'string':
      return `s:${JSON.stringify(value)}`;
    case 'number':
      return `n:${Object.is(value, -0) ? 0 : value}`;
    case 'boolean':
      return `b:${value}`;
    case 'bigint':
      return `i:${value}`;
    default:
      break;
  }
  // (The cast reads one field of a value of unknown type; the field is checked before use.)
  const hex = (value as { toHexString?: () => string }).toHexString;
  if (typeof hex === 'function') return `o:${hex.call(value)}`;
  // Plain objects (not produced by the parsers, but a local caller may pass one): keys sorted.
  const record = value as Record<string, unknown>;
  return `{${Object.keys(record).sort().map((k) => `${JSON.stringify(k)}:${valueKey(record[k])}`).join(',')}}`;
}

function sortedUnique(items: string[]): string[] {
  return [...new Set(items)].sort();
}

/**
 * The key of a condition tree: and/or children in a canonical order (nested compounds of the same kind
 * flattened), set-valued operands sorted. Equal keys mean equal conditions; the converse holds for the
 * forms the parsers produce.
 */
export function whereKey(node: WhereNode | undefined): string {
  if (!node) return '*';
  switch (node.kind) {
    case 'const':
      return node.value ? 'T' : 'F';
    case 'and':
    case 'or': {
      const children: string[] = [];
      const collect = (child: WhereNode): void => {
        if (child.kind === node.kind) child.nodes.forEach(collect);
        else children.push(whereKey(child));
      };
      node.nodes.forEach(collect);
      return `${node.kind}(${sortedUnique(children).join(';')})`;
    }
    case 'field': {
      const value =
        SET_OPERATORS.has(node.op) && Array.isArray(node.value) ? `[${sortedUnique(node.value.map(valueKey)).join(',')}]` : valueKey(node.value);
      return `${JSON.stringify(node.field.name)} ${node.op} ${value}`;
    }
    case 'relation':
      return `${JSON.stringify(node.field.name)}->${JSON.stringify(node.relationTo)}(${whereKey(node.where)})`;
    case 'ids':
      return `${JSON.stringify(node.field.name)} ids [${sortedUnique(node.ids.map((id) => id.toHexString())).join(',')}]`;
  }
}

function populateKey(tree: PopulateTree): string {
  const keys = Object.keys(tree).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}${populateKey(tree[k])}`).join(',')}}`;
}

function selectKey(select: readonly string[] | undefined): string {
  return select ? `[${sortedUnique([...select]).map((s) => JSON.stringify(s)).join(',')}]` : '*';
}

function isListQuery(query: ListQuery | RecordQuery): query is ListQuery {
  return 'sort' in query && Array.isArray(query.sort);
}

/**
 * A stable key for a parsed list query, or for a record query together with the record's id. Pure: depends
 * only on what changes the answer (conditions, sort, page, limit, cursor, count, fields, population,
 * includeDeleted, envelope), never on how the client spelt it.
 */
export function queryKey(query: ListQuery | RecordQuery, id?: string): string {
  const common = `sel=${selectKey(query.select)}|pop=${populateKey(query.populate)}|del=${String(query.includeDeleted)}`;
  if (!isListQuery(query)) return `record|id=${JSON.stringify(id ?? null)}|${common}`;
  const sort = query.sort.map((item) => `${item.direction < 0 ? '-' : '+'}${JSON.stringify(item.path)}`).join(',');
  const cursor =
    query.cursor === undefined ? 'none' : query.cursor === null ? 'first' : `${query.cursor.direction}${valueKey(query.cursor.values)}`;
  return [
    'list',
    `where=${whereKey(query.where)}`,
    `sort=${sort}`,
    `page=${query.page}`,
    `limit=${query.limit}`,
    `cursor=${cursor}`,
    `count=${query.count}`,
    common,
    `env=${query.envelope}`,
  ].join('|');
}

/** Operators whose operand is a set of values (`$in` order never changes what matches) or of conditions. */
const MONGO_SET_OPERATORS = new Set(['$in', '$nin', '$all']);
const MONGO_COMPOUNDS = new Set(['$and', '$or', '$nor']);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** A field's operand: an operator object (`{ $gte: 1 }`, keys in any order) or a literal to match as is. */
function operandKey(operand: unknown): string {
  if (!isPlainObject(operand)) return valueKey(operand);
  const keys = Object.keys(operand);
  // An embedded document compared for equality: its key order is part of the value, so it is kept.
  if (keys.length === 0 || !keys.every((k) => k.startsWith('$'))) return `lit{${keys.map((k) => `${JSON.stringify(k)}:${operandKey(operand[k])}`).join(',')}}`;
  const parts = keys.map((op) => {
    const value = operand[op];
    if (MONGO_SET_OPERATORS.has(op) && Array.isArray(value)) return `${op}[${sortedUnique(value.map(valueKey)).join(',')}]`;
    // $elemMatch and $not take a condition (a filter document or an operator object), not a literal.
    if (op === '$elemMatch' && isPlainObject(value)) return `${op}${mongoFilterKey(value)}`;
    return `${op}:${operandKey(value)}`;
  });
  return `ops{${parts.sort().join(',')}}`;
}

/**
 * A canonical key of a Mongo filter as the operations build it: field order, the order of `$and`/`$or`
 * members and of `$in`/`$nin`/`$all` values do not change it; values are type-tagged as in queryKey.
 * Equal keys mean filters that match the same documents. Caches of results of a final filter key on it.
 */
export function mongoFilterKey(filter: Record<string, unknown>): string {
  const parts = Object.keys(filter).map((key) => {
    const value = filter[key];
    if (MONGO_COMPOUNDS.has(key) && Array.isArray(value)) {
      return `${key}(${sortedUnique(value.map((member) => (isPlainObject(member) ? mongoFilterKey(member) : valueKey(member)))).join(';')})`;
    }
    return `${JSON.stringify(key)}=${operandKey(value)}`;
  });
  return `{${parts.sort().join(',')}}`;
}
