// The `idempotency` option: checked once with every other config problem, then resolved to the TTL of stored
// answers, the lease of a running request's claim, and the bounds of what one caller may make the router keep.
import type { ContentConfig } from '../config/types';
import { parseDuration } from '../util/duration';
import { isRecord } from '../util/is-record';

export interface ResolvedIdempotency {
  /** How long a completed request's answer is replayed (ms). */
  readonly ttlMs: number;
  /** How long a running request holds its key before another may take it over (ms); renewed while it runs. */
  readonly leaseMs: number;
  /** The largest answer body kept for a replay (bytes); a larger one is sent, and its key kept without it. */
  readonly maxAnswerBytes: number;
  /** How many keys one caller may hold within the TTL; a new key beyond them is a 429 before anything runs. */
  readonly maxKeysPerCaller: number;
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

const isCount = (value: unknown, min: number, max: number) => typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;

/** Problems of `config.idempotency`, named by path; none when it is absent or a boolean. */
export function validateIdempotencyConfig(config: ContentConfig): string[] {
  const value: unknown = config.idempotency;
  if (value === undefined || typeof value === 'boolean') return [];
  if (!isRecord(value)) return [SHAPE];
  const problems = Object.keys(value).filter((key) => !KEYS.includes(key)).map((key) => `idempotency.${key}: unknown option`);
  if (value.ttl !== undefined) {
    const ms = parseDuration(value.ttl);
    if (ms === undefined || ms < MIN_TTL_MS || ms > MAX_TTL_MS) {
      problems.push('idempotency.ttl: must be a duration from 1 s to 365 days ("24h", "30m", "7d", or a number of seconds)');
    }
  }
  if (value.maxAnswerBytes !== undefined && !isCount(value.maxAnswerBytes, 0, MAX_ANSWER_BYTES)) {
    problems.push(`idempotency.maxAnswerBytes: must be a whole number of bytes from 0 (keep no answer, only keys) to ${MAX_ANSWER_BYTES} (15 MiB)`);
  }
  if (value.maxKeysPerCaller !== undefined && !isCount(value.maxKeysPerCaller, 1, Number.MAX_SAFE_INTEGER)) {
    problems.push('idempotency.maxKeysPerCaller: must be a whole number from 1');
  }
  return problems;
}

/** The resolved options, or undefined when `idempotency: false` turns the feature off. */
export function resolveIdempotencyOptions(config: ContentConfig, requestTimeoutMS: number | false): ResolvedIdempotency | undefined {
  const value = config.idempotency;
  if (value === false) return undefined;
  const { ttl, maxAnswerBytes, maxKeysPerCaller } = typeof value === 'object' ? value : {};
  return {
    ttlMs: ttl === undefined ? DEFAULT_TTL_MS : parseDuration(ttl)!,
    leaseMs: (requestTimeoutMS === false ? DEFAULT_LEASE_MS : requestTimeoutMS) + LEASE_MARGIN_MS,
    maxAnswerBytes: maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES,
    maxKeysPerCaller: maxKeysPerCaller ?? DEFAULT_MAX_KEYS_PER_CALLER,
  };
}
