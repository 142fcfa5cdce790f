// What an idempotent route adds to its OpenAPI operation: the Idempotency-Key request header, the
// Idempotent-Replayed header of its success answers, and its 400, 409, 422 and 429 problems. The feature that
// reads a header documents it, so a router with `idempotency: false` does not.
import type { HeaderParameter, RouteDef, RouteResponse } from '../http/route-table';
import { IDEMPOTENCY_KEY, MAX_KEY_LENGTH } from './idempotency-key';
import { REPLAYED_HEADER } from './stored-answer';

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
  const responses: Record<number, RouteResponse> = {};
  for (const [code, response] of Object.entries(route.responses)) {
    const status = Number(code);
    responses[status] = status >= 200 && status < 300 ? { ...response, headers: { ...response.headers, [REPLAYED_HEADER]: REPLAYED } } : response;
  }
  responses[400] = { description: joined(route.responses[400], 'an Idempotency-Key that is empty, longer than 255 characters, not visible ASCII, or sent twice (invalid_header)') };
  responses[409] = {
    ...route.responses[409],
    description: joined(route.responses[409], 'a request with this Idempotency-Key is still running (idempotency_key_in_flight): retry after Retry-After seconds'),
    headers: { ...route.responses[409]?.headers, 'Retry-After': RETRY_AFTER },
  };
  responses[422] = {
    description: joined(route.responses[422], "this Idempotency-Key was used for a different request, or its request was done but its answer was not kept for a replay: too large to keep, or marked no-store (idempotency_key_reused)"),
  };
  responses[429] = {
    ...route.responses[429],
    description: joined(route.responses[429], 'the caller holds as many Idempotency-Keys as it may (idempotency_quota_exceeded): nothing ran; retry after Retry-After seconds'),
    headers: { 'Retry-After': QUOTA_RETRY_AFTER, ...route.responses[429]?.headers },
  };
  return { headers: [...(route.headers ?? []), keyParameter(ttlMs)], responses };
}
