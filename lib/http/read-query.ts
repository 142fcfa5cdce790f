// Reads the URL query with qs ourselves, whatever query parser the host app configured
// (Express 5 defaults to "simple", Express 4 to "extended"), so bracket `where[...]` always works.
import type { Request } from 'express';
import qs from 'qs';
import { rejectQuery } from '../query/reject';

/** Most `&`-separated parameters read; qs would silently drop the rest (and the conditions among them). */
const PARAMETER_LIMIT = 200;

const OPTIONS: qs.IParseOptions = {
  depth: 10,
  arrayLimit: 100,
  parameterLimit: PARAMETER_LIMIT,
  // Null-prototype objects: a `constructor` key stays an ordinary key the parser then rejects.
  plainObjects: true,
  allowPrototypes: false,
};

const PROTO = '__proto__';

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/** qs silently drops `__proto__` keys; a client that sends one is told so instead of being ignored. */
function rejectPrototypeKeys(pairs: readonly string[]): void {
  for (const pair of pairs) {
    // `where[or][0][__proto__][x]` -> where, or, 0, __proto__: reported as `where.or.0.__proto__`.
    const segments = safeDecode(pair.split('=', 1)[0]).split(/\]?\[|\]$/).filter(Boolean);
    const at = segments.indexOf(PROTO);
    if (at !== -1) rejectQuery(segments.slice(0, at + 1).join('.'), `the key "${PROTO}" is not allowed`, 'forbidden_key');
  }
}

/** The raw query string of the request, without the `?` ('' when there is none). */
export function querySearch(req: Request): string {
  const url = req.url;
  const start = url.indexOf('?');
  return start === -1 ? '' : url.slice(start + 1);
}

/** The request's query string parsed into nested objects and arrays. */
export function readQuery(req: Request): Record<string, unknown> {
  return parseQueryString(querySearch(req));
}

/** A raw query string (without the `?`) parsed into nested objects and arrays. */
export function parseQueryString(search: string): Record<string, unknown> {
  if (search === '') return {};
  const pairs = search.split('&');
  // Counted as qs counts (empty parts included), so nothing past its limit is ever ignored unnoticed.
  if (pairs.length > PARAMETER_LIMIT) rejectQuery('query', `more than ${PARAMETER_LIMIT} parameters`, 'too_many_parameters');
  rejectPrototypeKeys(pairs);
  return qs.parse(search, OPTIONS);
}
