// Reads single top-level query parameters that may come from qs (strings, or arrays when repeated)
// or from a local API caller (numbers, booleans). Missing and `undefined` are the same thing.
import { describeValue, rejectQuery, type QueryErrorCode } from './reject';

const INTEGER_TEXT = /^\d+$/;

/** True when `raw` carries the parameter with a defined value (`cursor=` counts: it is an empty string). */
export function hasParam(raw: Record<string, unknown>, name: string): boolean {
  return Object.hasOwn(raw, name) && raw[name] !== undefined;
}

/** The parameter's value, or undefined; a repeated parameter (`page=1&page=2`) is a 400. */
export function readSingleParam(raw: Record<string, unknown>, name: string, code: QueryErrorCode): unknown {
  if (!hasParam(raw, name)) return undefined;
  const value = raw[name];
  if (Array.isArray(value)) rejectQuery(name, 'expected a single value', code);
  return value;
}

/** `true`/`false` (booleans or those exact strings); `fallback` when absent; anything else is a 400. */
export function readBooleanParam(raw: Record<string, unknown>, name: string, fallback: boolean): boolean {
  const value = readSingleParam(raw, name, 'invalid_boolean');
  if (value === undefined) return fallback;
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  return rejectQuery(name, `${describeValue(value)} is not true or false`, 'invalid_boolean');
}

/**
 * A whole number from a safe-integer number or a string of digits, or undefined when it is neither
 * (`''`, `'1.5'`, `'-1'`, `'abc'`, `1e21`). Never NaN.
 */
export function toInteger(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : undefined;
  if (typeof value !== 'string' || !INTEGER_TEXT.test(value)) return undefined;
  const number = Number(value);
  return Number.isSafeInteger(number) ? number : undefined;
}
