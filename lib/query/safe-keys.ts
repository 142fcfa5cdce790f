// Rejects client structures that could smuggle Mongo operators or poison prototypes:
// `$`-prefixed keys and `__proto__`/`constructor`/`prototype` anywhere, at any depth, values included.
import { rejectQuery } from './reject';

const POISON_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** Deepest raw nesting scanned; far above what a valid where needs, low enough to keep recursion safe. */
const MAX_RAW_DEPTH = 32;

/** True for `{}`-style objects (what JSON.parse and qs produce), false for arrays, Dates, ObjectIds, class instances. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Walks plain objects and arrays and throws a 400 on the first forbidden key. Runs before any
 * interpretation, so a `$ne` hidden inside an `eq` value is refused as such, not as a bad value.
 */
export function assertSafeKeys(value: unknown, path: string, depth = 0): void {
  if (depth > MAX_RAW_DEPTH) rejectQuery(path, `nesting deeper than ${MAX_RAW_DEPTH} levels`, 'too_deep');
  if (Array.isArray(value)) {
    value.forEach((item, index) => assertSafeKeys(item, `${path}.${index}`, depth + 1));
    return;
  }
  if (!isPlainObject(value)) return;
  for (const key of Object.keys(value)) {
    // An empty path names the keys of the value itself (the arguments of an MCP tool call, each its own name).
    const at = path === '' ? key : `${path}.${key}`;
    if (key.startsWith('$')) rejectQuery(at, `keys starting with "$" are not allowed`, 'forbidden_key');
    if (POISON_KEYS.has(key)) rejectQuery(at, `the key "${key}" is not allowed`, 'forbidden_key');
    assertSafeKeys(value[key], at, depth + 1);
  }
}
