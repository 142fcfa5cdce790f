// Reads list-valued inputs in every shape they arrive in: JSON arrays, qs arrays (or qs objects with
// numeric keys, past arrayLimit), comma-separated strings, and arrays of comma-separated strings.
import { assertSafeKeys, isPlainObject } from './safe-keys';
import { describeValue, rejectQuery, type QueryErrorCode } from './reject';

const INDEX_KEY = /^(?:0|[1-9]\d*)$/;

/**
 * The values of an object whose keys are all array indexes, in index order (qs turns `a[150]=x` into
 * `{ '150': 'x' }` once an index passes arrayLimit); undefined for any other object.
 */
function valuesOfIndexed(value: Record<string, unknown>): unknown[] | undefined {
  const keys = Object.keys(value);
  if (keys.length === 0 || !keys.every((key) => INDEX_KEY.test(key))) return undefined;
  return keys.sort((a, b) => Number(a) - Number(b)).map((key) => value[key]);
}

/** The elements of an array, or of an indexed object as qs builds past arrayLimit; undefined for anything else. */
export function readArrayLike(value: unknown): unknown[] | undefined {
  if (Array.isArray(value)) return value as unknown[]; // (isArray narrows an unknown to any[])
  return isPlainObject(value) ? valuesOfIndexed(value) : undefined;
}

function splitComma(text: string): string[] {
  return text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/**
 * The elements of an operator's list value (`in`, `nin`, `any`, `all`, `between`): an array, an indexed
 * object, a JSON array string (`["a,b","c"]`, for values containing commas), or a comma-separated string
 * (items trimmed, empty items dropped). A lone scalar from a local API caller is a list of one.
 */
export function readValueList(value: unknown, path: string, max: number): unknown[] {
  const list = toList(value, path);
  if (list === undefined) rejectQuery(path, `${describeValue(value)} is not a list`, 'invalid_value');
  if (list.length > max) rejectQuery(path, `more than ${max} values`, 'too_many_values');
  return list;
}

function toList(value: unknown, path: string): unknown[] | undefined {
  if (typeof value === 'string') {
    return value.trimStart().startsWith('[') ? parseJsonArray(value, path) : splitComma(value);
  }
  if (value === undefined || value === null) return undefined;
  // A Date or ObjectId is a lone value; a plain object is a list only when its keys are indexes.
  if (isPlainObject(value) || Array.isArray(value)) return readArrayLike(value);
  return [value];
}

function parseJsonArray(text: string, path: string): unknown[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    rejectQuery(path, 'malformed JSON array', 'malformed_json');
  }
  if (!Array.isArray(parsed)) rejectQuery(path, 'malformed JSON array', 'malformed_json');
  assertSafeKeys(parsed, path);
  return parsed;
}

/**
 * The names in a list parameter (`sort`, `fields`, `include`): a comma-separated string or an array of
 * them (`sort=a&sort=-b`, `sort[]=a`); items trimmed, empty items dropped. Anything else is a 400.
 */
export function readNameList(value: unknown, param: string, code: QueryErrorCode): string[] {
  const parts = typeof value === 'string' ? [value] : readArrayLike(value);
  if (parts === undefined || !parts.every((part): part is string => typeof part === 'string')) {
    rejectQuery(param, 'expected a comma-separated list of names', code);
  }
  return parts.flatMap(splitComma);
}
