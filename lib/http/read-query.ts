// Reads the URL query with qs ourselves, whatever query parser the host app configured
// (Express 5 defaults to "simple", Express 4 to "extended"), so bracket `where[...]` always works.
import type { Request } from 'express';
import qs from 'qs';

const OPTIONS: qs.IParseOptions = {
  depth: 10,
  arrayLimit: 100,
  parameterLimit: 200,
  // Null-prototype objects: a `__proto__` key stays an ordinary key the parser then rejects.
  plainObjects: true,
  allowPrototypes: false,
};

/** The request's query string parsed into nested objects and arrays. */
export function readQuery(req: Request): Record<string, unknown> {
  const url = req.url;
  const start = url.indexOf('?');
  if (start === -1) return {};
  return qs.parse(url.slice(start + 1), OPTIONS) as Record<string, unknown>;
}
