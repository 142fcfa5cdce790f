// The where dialect's vocabulary: which keys are operators, which are compounds, and which
// operator makes sense on which kind of field (a 400 rather than a query that silently matches nothing).
import type { FieldDescriptor } from '../schema/descriptors';
import { rejectQuery } from './reject';
import { OPERATORS, type Operator } from './types';

const OPERATOR_SET: ReadonlySet<string> = new Set(OPERATORS);

/** Compound keys of Form B (`and`/`or`) and Form A (`AND`/`OR`), mapped to the node kind. */
export const COMPOUND_KEYS: Readonly<Record<string, 'and' | 'or'>> = Object.freeze({
  and: 'and',
  or: 'or',
  AND: 'and',
  OR: 'or',
});

/** True when `key` is one of the 16 operators. */
export function isOperator(key: string): key is Operator {
  return OPERATOR_SET.has(key);
}

/** True when `key` is a compound (`and`, `or`, `AND`, `OR`). */
export function isCompoundKey(key: string): boolean {
  return Object.hasOwn(COMPOUND_KEYS, key);
}

const ORDERED = new Set(['number', 'date', 'string', 'objectId']);

// Everything but `exists` needs a comparable scalar; json values have none.
const ALLOWED: Record<Operator, (field: FieldDescriptor) => boolean> = {
  eq: () => true,
  neq: () => true,
  in: () => true,
  nin: () => true,
  exists: () => true,
  gt: (f) => ORDERED.has(f.valueType),
  gte: (f) => ORDERED.has(f.valueType),
  lt: (f) => ORDERED.has(f.valueType),
  lte: (f) => ORDERED.has(f.valueType),
  like: (f) => f.valueType === 'string',
  nlike: (f) => f.valueType === 'string',
  contains: (f) => f.isArray || f.valueType === 'string',
  notContains: (f) => f.isArray || f.valueType === 'string',
  any: (f) => f.isArray,
  all: (f) => f.isArray,
  between: (f) => f.valueType === 'number' || f.valueType === 'date',
};

/** `a boolean field`, `an array field`, `a hasMany relationship field`: how messages name a field's kind. */
function kindOf(field: FieldDescriptor): string {
  const kind = !field.isArray ? field.type : field.type === 'array' ? 'array' : `hasMany ${field.type}`;
  return `${/^[aeiou]/.test(kind) ? 'an' : 'a'} ${kind} field`;
}

/** Throws a 400 when `op` cannot apply to `field` (e.g. `gt` on a boolean, anything but `exists` on json). */
export function assertOperatorAllowed(field: FieldDescriptor, op: Operator, path: string): void {
  if (field.valueType === 'json' && op !== 'exists') {
    rejectQuery(path, `operator "${op}" is not valid on a json field (only "exists" is)`, 'invalid_operator');
  }
  if (!ALLOWED[op](field)) rejectQuery(path, `operator "${op}" is not valid on ${kindOf(field)}`, 'invalid_operator');
}
