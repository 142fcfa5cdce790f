// Shared helpers of the list endpoint's HTTP specs (spec/http/list-*.spec.ts): query-string building,
// the 400 problem+json assertion, and reading ids out of the three list envelopes.
import type { Response } from 'supertest';

export const JSON_TYPE = /^application\/json/;
export const PROBLEM_TYPE = /^application\/problem\+json/;

/** One user that passes the default access rule (any authenticated user). */
export const USER_ID = '000000000000000000000001';

/**
 * A query string from [key, value] pairs: keys kept raw (so `where[title][like]` stays bracket form),
 * values percent-encoded (so `%`, `&`, `+`, `#` and spaces arrive as written).
 */
export function qs(...pairs: Array<[string, string | number | boolean]>): string {
  return pairs.map(([key, value]) => `${key}=${encodeURIComponent(String(value))}`).join('&');
}

/** `where=<URL-encoded JSON>`. */
export function whereJson(where: unknown): string {
  return `where=${encodeURIComponent(JSON.stringify(where))}`;
}

/** Records of a list response in whichever envelope it came. */
export function recordsOf(res: Response): Array<Record<string, unknown> & { id: string }> {
  const body = res.body as { data?: unknown; docs?: unknown };
  const records = Array.isArray(body.data) ? body.data : body.docs;
  if (!Array.isArray(records)) throw new Error(`not a list envelope (status ${res.status}): ${res.text.slice(0, 300)}`);
  return records as Array<Record<string, unknown> & { id: string }>;
}

/** Ids of a list response, in response order. */
export function idsOf(res: Response): string[] {
  return recordsOf(res).map((record) => record.id);
}

/** A 200 list answered as application/json. */
export function expectOkList(res: Response): void {
  if (res.status !== 200) throw new Error(`expected 200, got ${res.status}: ${res.text.slice(0, 500)}`);
  expect(res.headers['content-type']).toMatch(JSON_TYPE);
}

/**
 * A 400 problem+json for a rejected query: code `invalid_query`, the detail naming `field`, and one
 * errors[] entry `{ field, message, code }`. Returns the entry for further checks.
 */
export function expectQueryError(
  res: Response,
  field: string,
  code: string,
  message?: string | RegExp,
): { field: string; message: string; code: string } {
  if (res.status !== 400) throw new Error(`expected 400 for ${field}, got ${res.status}: ${res.text.slice(0, 500)}`);
  expect(res.headers['content-type']).toMatch(PROBLEM_TYPE);
  expect(res.body).toEqual({
    type: 'urn:content-router:problem:invalid_query',
    title: 'Invalid query',
    status: 400,
    code: 'invalid_query',
    detail: expect.stringContaining(`${field}: `),
    errors: [{ field, message: expect.any(String), code }],
  });
  const entry = res.body.errors[0] as { field: string; message: string; code: string };
  expect(res.body.detail).toBe(`${field}: ${entry.message}`);
  if (message !== undefined) expect(entry.message).toMatch(message);
  return entry;
}
