// Parses a where (URL JSON string, qs bracket object, local-API object, or access-function constraint)
// into a validated, cast WhereNode tree. Structure lives here; one field's condition in parse-condition.ts.
import type { CollectionDescriptor, SchemaRegistry } from '../schema/descriptors';
import { combineAnd, combineWhere } from './combine-where';
import { COMPOUND_KEYS, isCompoundKey } from './operators';
import { MAX_WHERE_DEPTH, type WhereContext, createWhereContext, parseFieldCondition } from './parse-condition';
import { readArrayLike } from './read-list';
import { rejectQuery } from './reject';
import { assertSafeKeys, isPlainObject } from './safe-keys';
import type { WhereNode } from './types';

/** Options of parseWhere. */
export interface ParseWhereOptions {
  /** True for server-written constraints (access functions): they may name hidden fields. Default false. */
  trusted?: boolean;
  /** Parameter name used in error paths. Default `where`. */
  param?: string;
}

/**
 * Parses a where into a WhereNode, or undefined when it constrains nothing (absent, empty string, `{}`).
 * Throws a 400 QueryError naming the path on malformed JSON, `$`/prototype keys, unknown or hidden
 * fields (hidden ones unless trusted), unknown operators, operators invalid for the field type, values
 * that cannot be cast, more than 10 levels of nesting or more than 200 conditions.
 */
export function parseWhere(
  input: unknown,
  collection: CollectionDescriptor,
  registry: SchemaRegistry,
  options: ParseWhereOptions = {},
): WhereNode | undefined {
  const param = options.param ?? 'where';
  const root = readWhereRoot(input, param);
  if (root === undefined) return undefined;
  const ctx = createWhereContext(collection, registry, options.trusted === true, param);
  return combineAnd(parseWhereObject(root, param, ctx, 0));
}

function readWhereRoot(input: unknown, param: string): Record<string, unknown> | undefined {
  if (input === undefined || input === null) return undefined;
  let root: unknown = input;
  if (typeof input === 'string') {
    if (input.trim() === '') return undefined;
    try {
      root = JSON.parse(input);
    } catch (error) {
      rejectQuery(param, `malformed JSON (${(error as Error).message})`, 'malformed_json');
    }
  }
  if (!isPlainObject(root)) rejectQuery(param, 'expected a JSON object of conditions', 'invalid_where');
  assertSafeKeys(root, param);
  return root;
}

/** An object of conditions: each key a compound or a field, all ANDed. */
function parseWhereObject(object: Record<string, unknown>, path: string, ctx: WhereContext, depth: number): WhereNode {
  const nodes = Object.entries(object).map(([key, value]) =>
    isCompoundKey(key)
      ? parseCompound(COMPOUND_KEYS[key], value, `${path}.${key}`, ctx, depth + 1)
      : parseFieldCondition(key, value, `${path}.${key}`, ctx, depth),
  );
  return combineWhere('and', nodes);
}

function parseCompound(kind: 'and' | 'or', value: unknown, path: string, ctx: WhereContext, depth: number): WhereNode {
  if (depth > MAX_WHERE_DEPTH) rejectQuery(path, `nesting deeper than ${MAX_WHERE_DEPTH} levels`, 'too_deep');
  const items = readArrayLike(value);
  if (items === undefined) rejectQuery(path, 'expected an array of conditions', 'invalid_where');
  const nodes = items.map((item, index) => {
    if (!isPlainObject(item)) rejectQuery(`${path}.${index}`, 'expected an object of conditions', 'invalid_where');
    return parseWhereObject(item, `${path}.${index}`, ctx, depth);
  });
  return combineWhere(kind, nodes);
}
