// The one place errors become RFC 9457 problem details. Pure: error in, status/headers/body out.
import { STATUS_CODES } from 'node:http';
import mongoose from 'mongoose';
import {
  ContentError,
  type ErrorDetail,
  isErrorAnswer,
  MalformedBodyError,
  PayloadTooLargeError,
  ServiceUnavailableError,
  UnsupportedMediaTypeError,
  ValidationError,
} from '../errors';

export interface Problem {
  status: number;
  headers: Record<string, string>;
  body: { type: string; title: string; status: number; detail: string; code: string; errors?: ErrorDetail[] };
  /** True when the error is ours to log (a 5xx), false for a client's mistake. */
  unexpected: boolean;
}

/**
 * Driver errors meaning "no database to talk to right now". Matched by name as well as by class, because a
 * host's connection may come from another copy of the driver than the one this package's mongoose loads.
 */
const UNAVAILABLE = new Set([
  'MongoServerSelectionError',
  'MongooseServerSelectionError',
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoNotConnectedError',
  'MongoTopologyClosedError',
  'MongoClientClosedError',
  'MongoServerClosedError',
  // A pool the driver emptied because another operation on it lost its connection.
  'MongoPoolClearedError',
  'PoolClearedOnNetworkError',
  'MongoPoolClosedError',
  'MongoWaitQueueTimeoutError',
]);

/**
 * The error's own name and the names of the classes it derives from: the driver's network errors have
 * subclasses (PoolClearedOnNetworkError, ...) that are outages too. By name, so it holds across copies
 * of the driver.
 */
function classNames(error: unknown): string[] {
  const names: string[] = [];
  if (typeof error !== 'object' || error === null) return names;
  const own = (error as { name?: unknown }).name;
  if (typeof own === 'string') names.push(own);
  for (let proto: unknown = Object.getPrototypeOf(error); proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    const name = (proto as { constructor?: { name?: unknown } }).constructor?.name;
    if (typeof name === 'string') names.push(name);
  }
  return names;
}

/**
 * Server error codes of a server going away or stepping down (shutdown, interrupted at shutdown, not
 * primary any more, host unreachable): what a real mongod answers in-flight operations while it stops.
 */
const UNAVAILABLE_CODES = new Set([6, 7, 89, 91, 189, 262, 9001, 10107, 11600, 11602, 13435, 13436]);

/**
 * Node socket errors. The driver normally wraps them in a MongoNetworkError, but a write that waits for the
 * socket to drain (a large batch) rejects with the socket's own error (mongodb 7.x): `Error: write ECONNRESET`.
 */
const SOCKET_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNREFUSED', 'ECONNABORTED', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTCONN']);

/** A socket failure named in a driver error's message (a bulk write copies only the network error's text). */
const SOCKET_MESSAGE = /\b(?:ECONNRESET|EPIPE|ECONNREFUSED|ECONNABORTED|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTCONN)\b/;

/** True for an error that says the database cannot be reached, however the driver or Mongoose wrapped it. */
export function isDatabaseUnavailable(error: unknown, depth = 3): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as { name?: unknown; message?: unknown; code?: unknown; syscall?: unknown; cause?: unknown; writeErrors?: unknown; writeConcernError?: { code?: unknown } };
  if (classNames(error).some((name) => UNAVAILABLE.has(name))) return true;
  if (typeof e.syscall === 'string' && typeof e.code === 'string' && SOCKET_CODES.has(e.code)) return true;
  const codes = [e.code, e.writeConcernError?.code, ...(Array.isArray(e.writeErrors) ? e.writeErrors.map((w: { code?: unknown; err?: { code?: unknown } } | null | undefined) => w?.code ?? w?.err?.code) : [])];
  if (codes.some((code) => typeof code === 'number' && UNAVAILABLE_CODES.has(code))) return true;
  const message = typeof e.message === 'string' ? e.message : '';
  if (/buffering timed out|before initial connection is complete|Client must be connected|connection .* closed/i.test(message)) return true;
  // A batch insert cut by the outage is a MongoBulkWriteError carrying only the network error's message.
  if (typeof e.name === 'string' && e.name.startsWith('Mongo') && SOCKET_MESSAGE.test(message)) return true;
  return depth > 0 && e.cause !== undefined && isDatabaseUnavailable(e.cause, depth - 1);
}

/** Problem type URIs are stable identifiers, one per error code. */
export function problemType(code: string): string {
  return `urn:content-router:problem:${code}`;
}

function fromBodyParser(error: { type?: string; status?: number }): ContentError | undefined {
  switch (error.type) {
    case 'entity.parse.failed':
      return new MalformedBodyError();
    case 'entity.too.large':
      return new PayloadTooLargeError();
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new UnsupportedMediaTypeError('Unsupported body encoding or charset.');
    default:
      return undefined;
  }
}

function fromMongoose(error: unknown): ContentError | undefined {
  if (error instanceof mongoose.Error.ValidationError) {
    // Messages are rebuilt from paths: Mongoose's own messages can echo the rejected value.
    const errors = Object.entries(error.errors).map(([field, e]) => ({
      field,
      message: `${field} is invalid`,
      code: (e as { kind?: string }).kind ?? 'invalid',
    }));
    return new ValidationError('The record is not valid.', errors);
  }
  if (error instanceof mongoose.Error.CastError) {
    return new ValidationError('A value has the wrong type.', [{ field: error.path, message: `${error.path} has the wrong type`, code: 'invalid_type' }]);
  }
  if (isDatabaseUnavailable(error)) return new ServiceUnavailableError();
  return undefined;
}

/** Express and body-parser mark other client errors with a 4xx `status` (e.g. a path that does not decode). */
function fromClientStatus(error: unknown): ContentError | undefined {
  const status = (error as { status?: unknown } | null)?.status;
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 400 || status > 499) return undefined;
  // Their messages echo the raw input; the problem says only what kind of mistake it was.
  return new ContentError(status, 'bad_request', STATUS_CODES[status] ?? 'Bad request', 'The request could not be read.');
}

/** How the router answers problems, decided from its config. */
export interface ProblemOptions {
  /** Development: a 500's detail carries the error's message and stack. */
  development: boolean;
  /** The `WWW-Authenticate` value of every 401 (RFC 9110 section 11.6.1); none when the router knows no scheme. */
  challenge?: string;
}

/** Maps any thrown value to a problem; unknown errors become a 500 without internals. */
export function toProblem(error: unknown, options: ProblemOptions): Problem {
  // A ContentError with a status outside 400-599 is the host's bug: a logged 500 (isErrorAnswer).
  const known =
    error instanceof ContentError
      ? isErrorAnswer(error) ? error : undefined
      : fromBodyParser(error ?? {}) ?? fromMongoose(error) ?? fromClientStatus(error);
  if (known) {
    const body: Problem['body'] = {
      type: problemType(known.code),
      title: known.title,
      status: known.status,
      detail: known.message,
      code: known.code,
    };
    if (known.errors) body.errors = known.errors;
    const headers = { ...known.headers };
    // Every 401, whoever threw it (a hook, an access rule, a custom endpoint), challenges with the router's schemes.
    if (known.status === 401 && options.challenge) headers['WWW-Authenticate'] = options.challenge;
    return { status: known.status, headers, body, unexpected: known.status >= 500 };
  }
  const detail =
    options.development && error instanceof Error ? `${error.message}\n${error.stack ?? ''}` : 'An unexpected error occurred.';
  return {
    status: 500,
    headers: {},
    body: { type: problemType('internal_error'), title: 'Internal server error', status: 500, detail, code: 'internal_error' },
    unexpected: true,
  };
}
