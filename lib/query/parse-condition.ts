// One field's condition in the where dialect: resolves the (possibly dotted) field name, reads its
// operators, checks each against the field's type and casts the value. Shared by `where` and Form C `filter`.
import type { CollectionDescriptor, FieldDescriptor, SchemaRegistry } from '../schema/descriptors';
import { castBoolean, castText as castPattern } from '../schema/value-cast';
import { castBound, castValue } from './cast-value';
import { combineWhere } from './combine-where';
import { findField } from './find-field';
import { assertOperatorAllowed, isOperator } from './operators';
import { readValueList } from './read-list';
import { describeValue, rejectQuery } from './reject';
import { assertSafeKeys, isPlainObject } from './safe-keys';
import { toLikeRegExp, toSubstringRegExp } from './text-match';
import { OPERATORS, type Operator, type WhereNode } from './types';

/** Deepest nesting of compounds and relationship hops in one where. */
export const MAX_WHERE_DEPTH = 10;
/** Most operator conditions (leaves) in one where. */
export const MAX_WHERE_CONDITIONS = 200;
/** Most values in one `in`/`nin`/`any`/`all` list. */
export const MAX_LIST_VALUES = 1000;

/** What parsing one where (or filter) needs to know; `leaves` is shared across the whole tree. */
export interface WhereContext {
  collection: CollectionDescriptor;
  registry: SchemaRegistry;
  /** Server-written constraints (access functions) may name hidden fields; clients may not. */
  trusted: boolean;
  /** The parameter the tree came from (`where`, `filter`), for the limit messages. */
  root: string;
  leaves: { count: number };
}

/** A fresh context for parsing one where/filter against `collection`. */
export function createWhereContext(
  collection: CollectionDescriptor,
  registry: SchemaRegistry,
  trusted: boolean,
  root: string,
): WhereContext {
  return { collection, registry, trusted, root, leaves: { count: 0 } };
}

/**
 * Parses `name -> raw` where raw is an operator object (`{ gt: 5, lt: 9 }`), a JSON string of one,
 * or a bare scalar (eq). A dotted name whose head is a relationship/upload field becomes a `relation`
 * node holding the rest of the path parsed against the related collection.
 */
export function parseFieldCondition(name: string, raw: unknown, path: string, ctx: WhereContext, depth: number): WhereNode {
  const dot = name.indexOf('.');
  // A field whose own name is a path (the audit log's `actor.id`; no collection field has a dot) is that field.
  if (dot === -1 || Object.hasOwn(ctx.collection.fields, name)) {
    const field = findField(ctx.collection, name, ctx.trusted);
    if (!field) rejectQuery(path, 'unknown field', 'unknown_field');
    const nodes = readOperators(raw, path).map(([op, value]) => parseOperator(field, op, value, `${path}.${op}`, ctx));
    return combineWhere('and', nodes);
  }
  const field = findField(ctx.collection, name.slice(0, dot), ctx.trusted);
  const related = field?.relationTo === undefined ? undefined : ctx.registry.get(field.relationTo);
  if (!field || !related) rejectQuery(path, 'unknown field', 'unknown_field');
  if (depth + 1 > MAX_WHERE_DEPTH) rejectQuery(path, `nesting deeper than ${MAX_WHERE_DEPTH} levels`, 'too_deep');
  const where = parseFieldCondition(name.slice(dot + 1), raw, path, { ...ctx, collection: related }, depth + 1);
  const node: WhereNode = { kind: 'relation', field, relationTo: related.slug, where, path };
  return ctx.trusted ? { ...node, trusted: true } : node;
}

/** The [operator, value] pairs of a field's condition. */
function readOperators(raw: unknown, path: string): Array<[Operator, unknown]> {
  let object: unknown = raw;
  // Bracket form may carry a field's operators as a JSON object (`where[views]={"gt":5}`); text that
  // merely starts with `{` but is not JSON stays a bare string compared with eq.
  if (typeof raw === 'string' && raw.trimStart().startsWith('{')) {
    try {
      object = JSON.parse(raw);
      assertSafeKeys(object, path);
    } catch (error) {
      if (!(error instanceof SyntaxError)) throw error;
      object = raw;
    }
  }
  if (Array.isArray(object)) {
    rejectQuery(path, 'a bare list is ambiguous: use an operator such as "in" or "all"', 'invalid_value');
  }
  if (!isPlainObject(object)) return [['eq', object]];
  const entries = Object.entries(object);
  if (entries.length === 0) rejectQuery(path, 'expected at least one operator', 'invalid_where');
  return entries.map(([key, value]) => {
    if (!isOperator(key)) rejectQuery(`${path}.${key}`, `unknown operator "${key}" (known operators: ${OPERATORS.join(', ')})`, 'unknown_operator');
    return [key, value];
  });
}

function countLeaf(ctx: WhereContext): void {
  ctx.leaves.count += 1;
  if (ctx.leaves.count > MAX_WHERE_CONDITIONS) {
    rejectQuery(ctx.root, `more than ${MAX_WHERE_CONDITIONS} conditions`, 'too_many_conditions');
  }
}

/**
 * The text of a pattern (`like`, `nlike`, `contains`/`notContains` on text): matched as typed, ignoring case,
 * and not cast as the field's values are (a fragment of an e-mail address is no address). Not text: a 400
 * `invalid_value`, as for other operands that are not a field value (an `exists` flag, a list's shape).
 */
function castText(value: unknown, path: string): string {
  const text = castPattern(value);
  if (text === undefined) rejectQuery(path, `${describeValue(value)} is not a string`, 'invalid_value');
  return text;
}

/**
 * One operator on one field -> a `field` leaf with its value cast. Values compared with the stored ones
 * (eq, neq, in, nin, any, all, between, contains on a list) are cast as a write casts them (cast-value.ts),
 * so an e-mail is trimmed and lower-cased here as in a body; a range bound (gt..lte) on an e-mail field is
 * trimmed and lower-cased but need not be a whole address. The value is a scalar, a list (`in`, `nin`,
 * `any`, `all`), a `[start, end]` pair (`between`), a boolean (`exists`), or a RegExp (`like`, `nlike`,
 * and `contains`/`notContains` on non-array text fields).
 */
function parseOperator(field: FieldDescriptor, op: Operator, raw: unknown, path: string, ctx: WhereContext): WhereNode {
  assertOperatorAllowed(field, op, path);
  countLeaf(ctx);
  return { kind: 'field', field, op, value: castOperand(field, op, raw, path) };
}

function castOperand(field: FieldDescriptor, op: Operator, raw: unknown, path: string): unknown {
  switch (op) {
    case 'eq':
    case 'neq':
      return castValue(field, raw, path, true);
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      return castBound(field, raw, path);
    case 'in':
    case 'nin':
    case 'any':
    case 'all':
      // null in an in-list matches missing values, as Mongo's $in does; any/all compare array elements.
      return readValueList(raw, path, MAX_LIST_VALUES).map((item, index) =>
        castValue(field, item, `${path}.${index}`, op === 'in' || op === 'nin'),
      );
    case 'between': {
      const bounds = readValueList(raw, path, MAX_LIST_VALUES);
      if (bounds.length !== 2) rejectQuery(path, 'expected exactly two values [start, end]', 'invalid_value');
      return bounds.map((bound, index) => castValue(field, bound, `${path}.${index}`));
    }
    case 'exists': {
      const flag = castBoolean(raw);
      if (flag === undefined) rejectQuery(path, `${describeValue(raw)} is not a boolean`, 'invalid_value');
      return flag;
    }
    case 'like':
    case 'nlike':
      return toLikeRegExp(castText(raw, path));
    case 'contains':
    case 'notContains':
      return field.isArray ? castValue(field, raw, path) : toSubstringRegExp(castText(raw, path));
  }
}
