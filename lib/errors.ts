// One error hierarchy for everything the router answers with a 4xx/5xx.
// http/error-handler.ts is the single place these become RFC 9457 problem+json.

/** One entry of a problem's `errors` list: which field or batch item, and what is wrong. */
export interface ErrorDetail {
  field?: string;
  /** A batch create's item, by its position in the request. */
  index?: number;
  /** A bulk write's record, by its id. */
  id?: string;
  message: string;
  code: string;
}

/** Base class: status, a stable machine code, a public message, optional per-field details. */
export class ContentError extends Error {
  readonly status: number;
  readonly code: string;
  readonly title: string;
  readonly errors?: ErrorDetail[];
  readonly headers?: Record<string, string>;

  constructor(
    status: number,
    code: string,
    title: string,
    detail: string,
    options: { errors?: ErrorDetail[]; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(detail, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.status = status;
    this.code = code;
    this.title = title;
    if (options.errors?.length) this.errors = options.errors;
    if (options.headers) this.headers = options.headers;
  }
}

/**
 * True for a ContentError the router answers as it is: its status is an error status (400-599). One thrown
 * with any other status (a hook or a rule throwing a 200 or a 302) would answer success, a 1xx that never
 * ends, or nothing at all: it is the host's bug, handled like any unexpected error (a logged 500, given to
 * the collection's afterError hooks).
 */
export function isErrorAnswer(error: unknown): error is ContentError {
  return error instanceof ContentError && Number.isInteger(error.status) && error.status >= 400 && error.status <= 599;
}

/** What is wrong with a ContentError whose status is not an error status, for the log; undefined for any other error. */
export function misusedStatus(error: unknown): string | undefined {
  if (!(error instanceof ContentError)) return undefined;
  const { status } = error;
  return isErrorAnswer(error) ? undefined : `a ContentError with status ${String(status)}, which is not an error status (400-599)`;
}

/** 400: a body that does not fit the schema (wrong type, missing, unknown field, bad option). */
export class ValidationError extends ContentError {
  constructor(detail: string, errors?: ErrorDetail[]) {
    super(400, 'validation_error', 'Validation failed', detail, { errors });
  }
}

/** 400: a URL query the router cannot honour (bad where, unknown field, bad page, bad cursor). */
export class QueryError extends ContentError {
  constructor(detail: string, errors?: ErrorDetail[], kind: { code: string; title: string } = { code: 'invalid_query', title: 'Invalid query' }) {
    super(400, kind.code, kind.title, detail, { errors });
  }
}

/**
 * 400: a valid query over a configured cost limit (relation conditions per request, hops per relation
 * path, ids one relation condition may match). The detail names the limit and its `core.api` option.
 */
export class QueryTooComplexError extends QueryError {
  constructor(detail: string, errors?: ErrorDetail[]) {
    super(detail, errors, { code: 'query_too_complex', title: 'Query too complex' });
  }
}

/** 400: a body that is not parseable JSON. */
export class MalformedBodyError extends ContentError {
  constructor(detail = 'The request body is not valid JSON.') {
    super(400, 'malformed_body', 'Malformed request body', detail);
  }
}

/**
 * 400: the client closed the connection before its request ended. Nobody reads the answer; it makes the
 * host's access log show a client event, and the router logs it at debug level only.
 */
export class RequestAbortedError extends ContentError {
  constructor(cause?: unknown) {
    super(400, 'request_aborted', 'Request aborted', 'The client closed the connection before the request ended.', { cause });
  }
}

/**
 * 401: missing, invalid or expired credentials. It names no challenge of its own: the router answers every
 * 401 with the `WWW-Authenticate` of the schemes it accepts (`Bearer` with an auth collection, the host's
 * `docs.securitySchemes`), which only the router's config knows.
 */
export class UnauthorizedError extends ContentError {
  constructor(detail = 'Authentication is required.', code = 'unauthorized') {
    super(401, code, 'Unauthorized', detail);
  }
}

/** 403: authenticated, but not allowed (access rule or API-key scope). */
export class ForbiddenError extends ContentError {
  constructor(detail = 'You are not allowed to perform this action.', code = 'forbidden', errors?: ErrorDetail[]) {
    super(403, code, 'Forbidden', detail, { errors });
  }
}

/**
 * 403: an unsafe request (POST, PUT, PATCH, DELETE), or a WebSocket upgrade, a browser sent from another
 * origin on behalf of the host's session user: cross-site request forgery (or WebSocket hijacking), unless
 * the origin is in `security.trustedOrigins`.
 */
export class CrossOriginRequestError extends ForbiddenError {
  constructor(
    detail = 'This write came from another origin with your session, so it was refused. Send it from this site, from an origin listed in security.trustedOrigins, or with a Bearer token or API key.',
  ) {
    super(detail, 'cross_origin_request');
  }
}

/** 404: no such record, route, or one the caller may not see. */
export class NotFoundError extends ContentError {
  constructor(detail = 'Not found.') {
    super(404, 'not_found', 'Not found', detail);
  }
}

/**
 * 409: a unique field already holds this value. Names the field, never echoes the value; a hidden field (one
 * a hook fills) is not named either (`field` undefined): clients know nothing of it.
 */
export class ConflictError extends ContentError {
  /** One field (and batch item), or several `{ field, index }` conflicts of a batch, all reported at once. */
  constructor(field: string | undefined | ReadonlyArray<{ field?: string; index?: number }>, index?: number) {
    const conflicts = typeof field === 'string' || field === undefined ? [{ field, index }] : field;
    const names = [...new Set(conflicts.flatMap((c) => (c.field === undefined ? [] : [c.field])))];
    const detail = names.length > 0 && names.length === new Set(conflicts.map((c) => c.field)).size ? `A record with this ${names.join(', ')} already exists.` : 'A record with these values already exists.';
    super(409, 'unique_conflict', 'Conflict', detail, {
      errors: conflicts.map((c) => (c.field === undefined ? { index: c.index, message: 'a unique value is already taken', code: 'unique' } : { field: c.field, index: c.index, message: `${c.field} must be unique`, code: 'unique' })),
    });
  }
}

/** 409: the record kept changing while a constrained write was being checked; retrying is safe. */
export class WriteConflictError extends ContentError {
  constructor(detail = 'The record was changed by someone else while this update was checked; try again.') {
    super(409, 'write_conflict', 'Conflict', detail);
  }
}

/** 409: a scheduled action that is no longer pending (done, failed, cancelled, or running now) cannot be cancelled. */
export class ScheduleNotPendingError extends ContentError {
  constructor(status: string) {
    super(409, 'schedule_not_pending', 'Conflict', `This scheduled action is ${status}, not pending: only a pending action can be cancelled.`);
  }
}

/**
 * A multi-record write refused as a whole, nothing written: `errors` names each failing item (`index` in a
 * batch, `id` in a bulk write by where). Its status is the items' when they agree (a 400, a 403, a 409),
 * else 400.
 */
export class ItemsFailedError extends ContentError {
  constructor(status: number, code: string, detail: string, errors: ErrorDetail[]) {
    super(status, code, status === 409 ? 'Conflict' : status === 403 ? 'Forbidden' : status === 401 ? 'Unauthorized' : status === 404 ? 'Not found' : 'Invalid items', detail, { errors });
  }
}

/** 409: a webhook delivery whose body could not be built (a read hook failed); there is nothing to send again. */
export class DeliveryNotRetryableError extends ContentError {
  constructor(detail: string) {
    super(409, 'delivery_not_retryable', 'Conflict', detail);
  }
}

/** 400: a bulk write whose where matches more records than it may write; nothing was written. */
export class TooManyMatchesError extends ContentError {
  constructor(most: number) {
    super(400, 'too_many_matches', 'Too many matches', `The where matches more than ${most} records, the most one bulk write may write (core.api.maxBulk); nothing was written. Narrow the where and repeat.`);
  }
}

/** 412: an If-Match that names no current representation of the record; nothing was written. */
export class PreconditionFailedError extends ContentError {
  constructor(detail = 'The record has changed since you read it (If-Match does not match its ETag); nothing was written. Read it again and retry.') {
    super(412, 'precondition_failed', 'Precondition failed', detail);
  }
}

/** 428: this write must carry If-Match (the collection's requireIfMatch). */
export class PreconditionRequiredError extends ContentError {
  constructor(detail = 'This write needs an If-Match header with the ETag of the record as you read it.') {
    super(428, 'precondition_required', 'Precondition required', detail);
  }
}

/** 400: a request header the route reads is malformed; the detail names it. */
export class InvalidHeaderError extends ContentError {
  constructor(header: string, detail: string) {
    super(400, 'invalid_header', 'Invalid header', `${header}: ${detail}`, { errors: [{ field: header, message: detail, code: 'invalid_header' }] });
  }
}

/**
 * 409: a request with this Idempotency-Key is still running; `Retry-After` says when to ask again (then
 * the first one's answer is replayed, or, had it failed, this one runs).
 */
export class IdempotencyKeyInFlightError extends ContentError {
  constructor(retryAfterSeconds = 1) {
    super(409, 'idempotency_key_in_flight', 'Conflict', 'A request with this Idempotency-Key is still being processed; retry it later.', {
      headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) },
    });
  }
}

/**
 * 429: the caller holds as many Idempotency-Keys as it may within their TTL (`idempotency.maxKeysPerCaller`);
 * a request with a new key is refused before it runs, never run without its key's protection.
 */
export class IdempotencyQuotaExceededError extends ContentError {
  constructor(max: number, retryAfterSeconds: number) {
    super(
      429,
      'idempotency_quota_exceeded',
      'Too many requests',
      `This caller already holds ${max} Idempotency-Keys, the most it may at once; nothing was run. Send the request again after Retry-After seconds, once its oldest key has expired.`,
      { headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) } },
    );
  }
}

/** 422: this Idempotency-Key was used for another request (method, path or body) by the same caller. */
export class IdempotencyKeyReusedError extends ContentError {
  constructor(detail = 'This Idempotency-Key was already used for a different request; use a new key for a new request.') {
    super(422, 'idempotency_key_reused', 'Unprocessable content', detail);
  }
}

/** 413: body or file larger than allowed. */
export class PayloadTooLargeError extends ContentError {
  constructor(detail = 'The request body is too large.') {
    super(413, 'payload_too_large', 'Payload too large', detail);
  }
}

/** 415: a write whose Content-Type the route does not accept. */
export class UnsupportedMediaTypeError extends ContentError {
  constructor(detail = 'Content-Type must be application/json.') {
    super(415, 'unsupported_media_type', 'Unsupported media type', detail);
  }
}

/** 426: a plain request to an endpoint that speaks only WebSocket. */
export class UpgradeRequiredError extends ContentError {
  constructor(detail = 'This endpoint speaks WebSocket: send an Upgrade: websocket request.') {
    super(426, 'upgrade_required', 'Upgrade required', detail, { headers: { Upgrade: 'websocket', Connection: 'Upgrade' } });
  }
}

/** 416: a Range outside the file; its Content-Range header gives the file size. */
export class RangeNotSatisfiableError extends ContentError {
  constructor(size: number) {
    super(416, 'range_not_satisfiable', 'Range not satisfiable', `The requested range is outside the file (${size} bytes).`, {
      headers: { 'Content-Range': `bytes */${size}` },
    });
  }
}

/** 429: rate limit exceeded. */
export class TooManyRequestsError extends ContentError {
  constructor(retryAfterSeconds: number) {
    super(429, 'rate_limited', 'Too many requests', 'Too many requests, please try again later.', {
      headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) },
    });
  }
}

/** 429: the client already holds as many open realtime connections (SSE streams, WebSockets) as it may. */
export class TooManyConnectionsError extends ContentError {
  constructor(max: number) {
    super(429, 'too_many_connections', 'Too many connections', `At most ${max} open realtime connections per client: close one first.`);
  }
}

/** 429: too many failed logins for this address; `Retry-After` says when to try again. */
export class AccountLockedError extends ContentError {
  constructor(retryAfterMs: number) {
    const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
    const minutes = Math.ceil(seconds / 60);
    super(429, 'account_locked', 'Account locked', `Too many failed logins: this account is locked. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`, {
      headers: { 'Retry-After': String(seconds) },
    });
  }
}

/** 405: the path is the router's, the method is not served there; `Allow` lists the ones that are. */
export class MethodNotAllowedError extends ContentError {
  constructor(method: string, allow: string) {
    super(405, 'method_not_allowed', 'Method not allowed', `${method} is not served here; use ${allow}.`, { headers: { Allow: allow } });
  }
}

/** 503: the database cannot be reached. */
export class ServiceUnavailableError extends ContentError {
  constructor(detail = 'The database is unavailable. Try again shortly.') {
    super(503, 'service_unavailable', 'Service unavailable', detail, { headers: { 'Retry-After': '5' } });
  }
}

/**
 * 503 given before any work while the connection is known to be down (the router's database gate): nothing
 * of the request was written. Not logged per request: the router logs the outage itself, once.
 */
export class DatabaseDownError extends ServiceUnavailableError {
  constructor() {
    super('The database is unavailable; the request was not processed. Try again shortly.');
  }
}

/**
 * The database did not answer within the router's request deadline (`db.requestTimeoutMS`). Unlike a 503
 * before any work, a write may or may not have been applied: the detail says so.
 */
export class DatabaseTimeoutError extends ContentError {
  constructor(ms: number) {
    super(
      503,
      'database_timeout',
      'Service unavailable',
      `The database did not answer within ${ms / 1000} s. A read can be retried; a write may or may not have been applied, so read before retrying it.`,
      { headers: { 'Retry-After': '5' } },
    );
  }
}

/** Thrown by contentRouter() when the config is invalid: one error listing every problem with its path. */
export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid content-router config:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}
