// The `idempotency` option: checked once with every other config problem, then resolved to the TTL of stored
// answers and the lease of a running request's claim.
import type { ContentConfig } from '../config/types';
import { parseDuration } from '../util/duration';
import { isRecord } from '../util/is-record';

export interface ResolvedIdempotency {
  /** How long a completed request's answer is replayed (ms). */
  readonly ttlMs: number;
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
const KEYS = ['ttl'];

/** Problems of `config.idempotency`, named by path; none when it is absent or a boolean. */
export function validateIdempotencyConfig(config: ContentConfig): string[] {
  const value: unknown = config.idempotency;
  if (value === undefined || typeof value === 'boolean') return [];
  if (!isRecord(value)) return ['idempotency: must be false, true or an object { ttl }'];
  const problems = Object.keys(value).filter((key) => !KEYS.includes(key)).map((key) => `idempotency.${key}: unknown option`);
  if (value.ttl !== undefined) {
    const ms = parseDuration(value.ttl);
    if (ms === undefined || ms < MIN_TTL_MS || ms > MAX_TTL_MS) {
      problems.push('idempotency.ttl: must be a duration from 1 s to 365 days ("24h", "30m", "7d", or a number of seconds)');
    }
  }
  return problems;
}

/** The resolved options, or undefined when `idempotency: false` turns the feature off. */
export function resolveIdempotencyOptions(config: ContentConfig, requestTimeoutMS: number | false): ResolvedIdempotency | undefined {
  const value = config.idempotency;
  if (value === false) return undefined;
  const ttl = typeof value === 'object' ? value.ttl : undefined;
  return {
    ttlMs: ttl === undefined ? DEFAULT_TTL_MS : parseDuration(ttl)!,
    leaseMs: (requestTimeoutMS === false ? DEFAULT_LEASE_MS : requestTimeoutMS) + LEASE_MARGIN_MS,
  };
}
