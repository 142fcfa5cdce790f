// Remembers parsed read queries by their query string, so the common repeated request (the same list a
// page shows to every visitor) skips qs and the whole parse. Bounded in entries and in characters kept;
// the least recently used entry goes first. Only successful parses are kept: a bad query is parsed
// (and refused) every time, so no client can fill the memo with its mistakes.
import { deepFreeze } from '../util/deep-freeze';

/** Query strings longer than this are parsed every time: long ones are rarely repeated. */
const MAX_KEY_CHARS = 2048;

export interface QueryMemoLimits {
  /** Most entries kept. */
  entries: number;
  /** Most characters of query string kept, summed over the entries (parsed values are proportional). */
  chars: number;
}

export const DEFAULT_QUERY_MEMO_LIMITS: QueryMemoLimits = { entries: 500, chars: 256 * 1024 };

export interface QueryMemo {
  /**
   * The parse of `search` for `route`, from memory or from `parse` (then kept, frozen: callers share it
   * and must never mutate it). `keep(result)` may decline results that are never asked again (a cursor).
   */
  get<T>(route: string, search: string, parse: () => T, keep?: (result: T) => boolean): T;
  /**
   * `get` for one route, as a function of the query string. The parse of an empty query string (the
   * commonest request: a record or a first page with the defaults) is kept apart once parsed, outside
   * the bounds: one per route.
   */
  reader<T>(route: string, parse: (search: string) => T, keep?: (result: T) => boolean): (search: string) => T;
  readonly size: number;
}

export function createQueryMemo(limits: QueryMemoLimits = DEFAULT_QUERY_MEMO_LIMITS): QueryMemo {
  // A Map iterates in insertion order: re-inserting on a hit makes the first key the least recently used.
  const entries = new Map<string, unknown>();
  let chars = 0;
  const memo: QueryMemo = {
    get<T>(route: string, search: string, parse: () => T, keep?: (result: T) => boolean): T {
      if (search.length > MAX_KEY_CHARS) return parse();
      const key = `${route}?${search}`;
      if (entries.has(key)) {
        const hit = entries.get(key) as T;
        entries.delete(key);
        entries.set(key, hit);
        return hit;
      }
      const result = parse();
      if (keep && !keep(result)) return result;
      entries.set(key, deepFreeze(result));
      chars += key.length;
      while (entries.size > limits.entries || chars > limits.chars) {
        const oldest = entries.keys().next().value as string;
        entries.delete(oldest);
        chars -= oldest.length;
      }
      return result;
    },
    reader<T>(route: string, parse: (search: string) => T, keep?: (result: T) => boolean): (search: string) => T {
      let empty: { query: T } | undefined;
      return (search) => {
        if (search !== '') return memo.get(route, search, () => parse(search), keep);
        if (empty) return empty.query;
        const query = parse('');
        if (!keep || keep(query)) empty = { query: deepFreeze(query) };
        return query;
      };
    },
    get size() {
      return entries.size;
    },
  };
  return memo;
}
