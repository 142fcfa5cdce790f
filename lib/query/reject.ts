// The one way the query layer rejects client input: a 400 QueryError naming the parameter path.
// Every message has the shape `<path>: <what is wrong>`, with one matching errors[] entry.
import { QueryError, QueryTooComplexError } from '../errors';
import type { CastCode } from '../schema/value-cast';

/**
 * Stable machine codes carried in `errors[].code` of a rejected query; a value that is not of its field's
 * type carries the code a body gets for it (CastCode: `invalid_type`, `invalid_date`, ...).
 */
export type QueryErrorCode =
  | CastCode
  | 'malformed_json'
  | 'invalid_where'
  | 'forbidden_key'
  | 'unknown_operator'
  | 'unknown_field'
  | 'invalid_operator'
  | 'invalid_value'
  | 'too_deep'
  | 'too_many_conditions'
  | 'too_many_values'
  | 'invalid_filter'
  | 'invalid_search'
  | 'invalid_sort'
  | 'duplicate_sort'
  | 'invalid_page'
  | 'invalid_limit'
  | 'limit_exceeded'
  | 'invalid_boolean'
  | 'invalid_cursor'
  | 'invalid_depth'
  | 'invalid_include'
  | 'invalid_fields'
  | 'too_many_parameters'
  | 'unknown_parameter'
  | 'query_too_complex';

/**
 * Throws a QueryError whose detail is `<path>: <message>` and whose single errors[] entry
 * carries the same path as `field`, so clients can point at the offending parameter.
 */
export function rejectQuery(path: string, message: string, code: QueryErrorCode): never {
  throw new QueryError(`${path}: ${message}`, [{ field: path, message, code }]);
}

/**
 * Throws a 400 QueryTooComplexError (`code: query_too_complex`) shaped like rejectQuery's: a valid
 * query over a configured cost limit, `message` naming the limit and its option.
 */
export function rejectTooComplex(path: string, message: string): never {
  throw new QueryTooComplexError(`${path}: ${message}`, [{ field: path, message, code: 'query_too_complex' }]);
}

const MAX_SHOWN = 60;

/** A short, JSON-ish rendering of a client value for error messages (never the whole of a long input). */
export function describeValue(value: unknown): string {
  let text: string;
  if (value === undefined) text = 'undefined';
  else if (value instanceof Date) text = Number.isNaN(value.getTime()) ? 'Invalid Date' : value.toISOString();
  else {
    try {
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- JSON.stringify answers undefined for a function or a symbol, which its typings omit
      text = JSON.stringify(value) ?? typeof value;
    } catch {
      // Circular or BigInt values (local API only): a type name is enough to say what was wrong.
      text = typeof value;
    }
  }
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}...` : text;
}
