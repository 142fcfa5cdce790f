// Form C `filter`: `field:value` (equals), `field:>value`, `>=`, `<`, `<=`, `!=`; repeatable, all ANDed.
// Each item becomes the same field condition a where would produce, with the same casting and rejections.
import type { CollectionDescriptor, SchemaRegistry } from '../schema/descriptors';
import { combineAnd } from './combine-where';
import { createWhereContext, parseFieldCondition } from './parse-condition';
import { readArrayLike } from './read-list';
import { rejectQuery } from './reject';
import type { Operator, WhereNode } from './types';

// Two-character prefixes first, so `>=5` is not read as `>` of `=5`.
const PREFIXES: ReadonlyArray<[string, Operator]> = [
  ['>=', 'gte'],
  ['<=', 'lte'],
  ['!=', 'neq'],
  ['>', 'gt'],
  ['<', 'lt'],
];

/** Splits one `field:[op]value` item on its first `:`; the value may itself contain colons (times). */
export function splitFilterItem(item: string, path: string): { field: string; op: Operator; value: string } {
  const colon = item.indexOf(':');
  if (colon <= 0) rejectQuery(path, 'expected "field:value" (or field:>value, >=, <, <=, !=)', 'invalid_filter');
  const field = item.slice(0, colon).trim();
  const rest = item.slice(colon + 1);
  const prefix = PREFIXES.find(([text]) => rest.startsWith(text));
  return prefix ? { field, op: prefix[1], value: rest.slice(prefix[0].length) } : { field, op: 'eq', value: rest };
}

/** Parses the `filter` parameter (a string or a list of them) into one ANDed WhereNode; undefined when absent or empty. */
export function parseFilter(
  input: unknown,
  collection: CollectionDescriptor,
  registry: SchemaRegistry,
): WhereNode | undefined {
  if (input === undefined) return undefined;
  const items = typeof input === 'string' ? [input] : readArrayLike(input);
  if (items === undefined) rejectQuery('filter', 'expected "field:value" items', 'invalid_filter');
  const ctx = createWhereContext(collection, registry, false, 'filter');
  const nodes = items.map((item, index) => {
    const path = items.length === 1 ? 'filter' : `filter.${index}`;
    if (typeof item !== 'string') rejectQuery(path, 'expected "field:value"', 'invalid_filter');
    // An empty `filter=` is what HTML forms send for a blank input: no constraint, not an error.
    if (item.trim() === '') return undefined;
    const { field, op, value } = splitFilterItem(item, path);
    return parseFieldCondition(field, { [op]: value }, `${path}.${field}`, ctx, 0);
  });
  return combineAnd(...nodes);
}
