// The `idempotency` option: checked and resolved in one pass at start-up, with every other config problem,
// to the TTL of stored answers and the bounds of what one caller may make the router keep; the lease of a
// running request's claim follows from the core's request deadline.
import type { ParsedOptions } from '../config/resolve-config';
import type { ContentConfig } from '../config/types';
import { parseDuration } from '../util/duration';
import { isRecord } from '../util/is-record';

/** The `idempotency` option, resolved; undefined when `idempotency: false` turns the feature off. */
export interface ParsedIdempotency {
  /** How long a completed request's answer is replayed (ms). */
  readonly ttlMs: number;
  /** The largest answer body kept for a replay (bytes); a larger one is sent, and its key kept without it. */
  readonly maxAnswerBytes: number;
  /** How many keys one caller may hold within the TTL; a new key beyond them is a 429 before anything runs. */
  readonly maxKeysPerCaller: number;
}

/** What the store runs on: the parsed option and the lease that follows from the request deadline. */
export interface ResolvedIdempotency extends ParsedIdempotency {
  /** How long a running request holds its key before another may take it over (ms); renewed while it runs. */
  readonly leaseMs: number;
}

const DEFAULT_TTL_MS = 24 * 3_600_000;
const MIN_TTL_MS = 1000;
const MAX_TTL_MS = 365 * 24 * 3_600_000;
/** The lease of a request without a deadline (`db.requestTimeoutMS: false`). */
const DEFAULT_LEASE_MS = 30_000;
/** Beyond the deadline: a claim outlives its request's own answer, whatever that answer's timer does. */
const LEASE_MARGIN_MS = 5000;
/** A MongoDB document holds 16 MiB: an answer, its headers and the row's other fields must fit in one. */
export const MAX_ANSWER_BYTES = 15 * 1024 * 1024;
/** About the size of the largest JSON body a create takes by default (`core.api.bodyLimit`, 1 MB): its answer. */
const DEFAULT_MAX_ANSWER_BYTES = 1024 * 1024;
const DEFAULT_MAX_KEYS_PER_CALLER = 1000;
const KEYS = ['ttl', 'maxAnswerBytes', 'maxKeysPerCaller'];
const SHAPE = 'idempotency: must be false, true or an object { ttl, maxAnswerBytes, maxKeysPerCaller }';

const isCount = (value: unknown, min: number, max: number): value is number => typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;

/** Checks and resolves `config.idempotency`; the options are undefined when it is `false`. */
export function parseIdempotencyOptions(config: ContentConfig): ParsedOptions<ParsedIdempotency | undefined> {
  const value: unknown = config.idempotency;
  if (value === false) return { problems: [], options: undefined };
  const defaults = { ttlMs: DEFAULT_TTL_MS, maxAnswerBytes: DEFAULT_MAX_ANSWER_BYTES, maxKeysPerCaller: DEFAULT_MAX_KEYS_PER_CALLER };
  if (value === undefined || value === true) return { problems: [], options: defaults };
  if (!isRecord(value)) return { problems: [SHAPE], options: undefined };
  const problems = Object.keys(value).filter((key) => !KEYS.includes(key)).map((key) => `idempotency.${key}: unknown option`);
  const { ttl, maxAnswerBytes, maxKeysPerCaller } = value;
  const ttlMs = ttl === undefined ? DEFAULT_TTL_MS : parseDuration(ttl);
  if (ttlMs === undefined || ttlMs < MIN_TTL_MS || ttlMs > MAX_TTL_MS) {
    problems.push('idempotency.ttl: must be a duration from 1 s to 365 days ("24h", "30m", "7d", or a number of seconds)');
  }
  if (maxAnswerBytes !== undefined && !isCount(maxAnswerBytes, 0, MAX_ANSWER_BYTES)) {
    problems.push(`idempotency.maxAnswerBytes: must be a whole number of bytes from 0 (keep no answer, only keys) to ${MAX_ANSWER_BYTES} (15 MiB)`);
  }
  if (maxKeysPerCaller !== undefined && !isCount(maxKeysPerCaller, 1, Number.MAX_SAFE_INTEGER)) {
    problems.push('idempotency.maxKeysPerCaller: must be a whole number from 1');
  }
  if (problems.length) return { problems, options: undefined };
  return {
    problems,
    options: {
      ttlMs: ttlMs ?? DEFAULT_TTL_MS,
      maxAnswerBytes: isCount(maxAnswerBytes, 0, MAX_ANSWER_BYTES) ? maxAnswerBytes : DEFAULT_MAX_ANSWER_BYTES,
      maxKeysPerCaller: isCount(maxKeysPerCaller, 1, Number.MAX_SAFE_INTEGER) ? maxKeysPerCaller : DEFAULT_MAX_KEYS_PER_CALLER,
    },
  };
}

/** How long a running request holds its key: past its deadline (`db.requestTimeoutMS`), or 30 s without one. */
export function leaseFor(requestTimeoutMS: number | false): number {
  return (requestTimeoutMS === false ? DEFAULT_LEASE_MS : requestTimeoutMS) + LEASE_MARGIN_MS;
}
