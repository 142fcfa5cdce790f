// What identifies a keyed request, and what it is compared with. The Idempotency-Key request header (IETF
// httpapi draft, Stripe's semantics): 1 to 255 visible ASCII characters, sent once, read before the body, so a
// malformed key costs no upload. Whose keys a key is among: a key is only ever compared with the same
// caller's keys. An authenticated caller is its auth collection and user id (every session and refresh of
// its tokens, so a retry survives a token refresh), plus its scopes for an API key (a key with fewer rights
// never gets the answer of one with more); an anonymous caller is its client address as the rate limiter
// sees it. What "the same request" means for a key (its fingerprint): the method, the path with its query as
// sent, and the body: a JSON body as parsed (the same members in the same order, whitespace aside), a
// multipart form by its digest (http/form-digest.ts: fields, file names, types and bytes, whatever the
// boundary); an HMAC keyed with the Idempotency-Key, which is never stored, so a body's secrets (a password
// an admin sets on a new user) cannot be guessed and checked against the row. And what an idempotent route
// adds to its OpenAPI operation: the header, the Idempotent-Replayed header of its success answers, and its
// 400, 409, 422 and 429 problems (the feature that reads a header documents it, so a router with
// `idempotency: false` does not).
import { createHmac } from 'node:crypto';
import type { Request } from 'express';
import { InvalidHeaderError } from '../errors';
import { createClientKey } from '../http/client-key';
import { requestUser } from '../http/request-user';
import type { HeaderParameter, RouteDef, RouteResponse } from '../http/route-table';
import type { Runtime } from '../operations/runtime';

/** Set on a replayed answer. */
export const REPLAYED_HEADER = 'Idempotent-Replayed';

export const IDEMPOTENCY_KEY = 'Idempotency-Key';
const NAME = IDEMPOTENCY_KEY.toLowerCase();
export const MAX_KEY_LENGTH = 255;
/** Visible ASCII (0x21-0x7E): no space, no control character, nothing beyond ASCII. */
const VISIBLE_ASCII = /^[\x21-\x7E]+$/;

/** True when the raw headers name Idempotency-Key more than once (Node joins the values with ", "). */
function repeated(raw: readonly string[]): boolean {
  let count = 0;
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i].length === NAME.length && raw[i].toLowerCase() === NAME) count += 1;
  }
  return count > 1;
}

/** The request's key; undefined without the header; an InvalidHeaderError (400) for a malformed one. */
export function readIdempotencyKey(req: Request): string | undefined {
  const value = req.headers[NAME];
  if (value === undefined) return undefined;
  if (Array.isArray(value) || repeated(req.rawHeaders)) throw new InvalidHeaderError(IDEMPOTENCY_KEY, 'must be sent once.');
  if (value === '') throw new InvalidHeaderError(IDEMPOTENCY_KEY, 'must not be empty.');
  if (value.length > MAX_KEY_LENGTH) throw new InvalidHeaderError(IDEMPOTENCY_KEY, `must be at most ${MAX_KEY_LENGTH} characters.`);
  if (!VISIBLE_ASCII.test(value)) throw new InvalidHeaderError(IDEMPOTENCY_KEY, 'must be visible ASCII characters only (no spaces or control characters).');
  return value;
}

export type CallerScope = (req: Request) => Promise<string>;

/** The scope of a request's caller; rejects for a bad credential (the 401 the route would answer). */
export function createCallerScope(runtime: Runtime): CallerScope {
  // The rate limiter's keyBy when the host set one (its clients are those), else the address.
  const clientKey = createClientKey(runtime.config.clientKeyBy);
  return async (req) => {
    const user = await requestUser(runtime, req);
    if (!user) return `client\n${clientKey(req)}`;
    const scopes = user.scopes ? [...user.scopes].sort().join(',') : '*';
    return `user\n${user.collection ?? ''}\n${user.id}\n${scopes}`;
  };
}

export type FingerprintedBody = { json: unknown } | { form: string };

/** An HMAC-SHA-256, keyed with the request's Idempotency-Key, over its method, path, query and body. */
export function requestFingerprint(req: Request, key: string, body: FingerprintedBody): string {
  const content = 'form' in body ? ['form', body.form] : ['json', body.json ?? null];
  return createHmac('sha256', key).update(JSON.stringify([req.method, req.originalUrl, ...content])).digest('hex');
}

/** The header as a client of this server reads it: its TTL as configured, not the package's default. */
function keyParameter(ttlMs: number): HeaderParameter {
  return {
    name: IDEMPOTENCY_KEY,
    description: `Makes a retry safe: a repeat of this request (same method, path with its query, and body) from the same caller with the same key, within ${ttlMs / 1000} seconds, gets the first answer again and writes nothing.`,
    schema: { type: 'string', minLength: 1, maxLength: MAX_KEY_LENGTH, pattern: '^[\\x21-\\x7E]+$' },
  };
}

const REPLAYED = { description: 'true when this is the stored answer of an earlier request with the same Idempotency-Key', schema: { type: 'string', const: 'true' } };
const RETRY_AFTER = { description: 'Seconds to wait before retrying (idempotency_key_in_flight)', schema: { type: 'integer' } };
const QUOTA_RETRY_AFTER = { description: "Seconds until the caller's oldest Idempotency-Key expires (idempotency_quota_exceeded)", schema: { type: 'integer' } };

/** `description`, or it and `more` when the route already answers that status for another reason. */
function joined(response: RouteResponse | undefined, more: string): string {
  return response ? `${response.description}; or ${more}` : more.charAt(0).toUpperCase() + more.slice(1);
}

/** The route as documented with the key; the route itself is not changed. */
export function withIdempotencyDocs(route: RouteDef, ttlMs: number): Pick<RouteDef, 'headers' | 'responses'> {
  // The statuses the route does not answer are missing.
  const given: Partial<Record<number, RouteResponse>> = route.responses;
  const responses: Record<number, RouteResponse> = {};
  for (const [code, response] of Object.entries(route.responses)) {
    const status = Number(code);
    responses[status] = status >= 200 && status < 300 ? { ...response, headers: { ...response.headers, [REPLAYED_HEADER]: REPLAYED } } : response;
  }
  // A 400 the route answers in its own shape (MCP's JSON-RPC parse error) stays, beside the key's problem.
  responses[400] = { ...given[400], problem: true, description: joined(given[400], 'an Idempotency-Key that is empty, longer than 255 characters, not visible ASCII, or sent twice (invalid_header)') };
  responses[409] = {
    ...given[409],
    description: joined(given[409], 'a request with this Idempotency-Key is still running (idempotency_key_in_flight): retry after Retry-After seconds'),
    headers: { ...given[409]?.headers, 'Retry-After': RETRY_AFTER },
  };
  responses[422] = {
    description: joined(given[422], "this Idempotency-Key was used for a different request, or its request was done but its answer was not kept for a replay: too large to keep, or marked no-store (idempotency_key_reused)"),
  };
  responses[429] = {
    ...given[429],
    description: joined(given[429], 'the caller holds as many Idempotency-Keys as it may (idempotency_quota_exceeded): nothing ran; retry after Retry-After seconds'),
    headers: { 'Retry-After': QUOTA_RETRY_AFTER, ...given[429]?.headers },
  };
  return { headers: [...(route.headers ?? []), keyParameter(ttlMs)], responses };
}
