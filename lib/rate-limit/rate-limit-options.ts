// `security.rateLimit`, checked and resolved in one pass at start-up (the core checks `security` itself):
// known keys only, positive integer limits and windows, a known store, keyBy a function; then the
// limits with their defaults. Problems are named by path, like every other config problem.
import type { ParsedOptions } from '../config/resolve-config';
import type { ContentConfig } from '../config/types';
import { isRecord } from '../util/is-record';

export const DEFAULT_WINDOW_MS = 60_000;
export const DEFAULT_MAX = 100;
export const DEFAULT_AUTH_WINDOW_MS = 15 * 60_000;
export const DEFAULT_AUTH_MAX = 10;
/** The per-client bound of the credential routes is this many times the per-account limit by default. */
export const DEFAULT_AUTH_CLIENT_FACTOR = 5;

/** Longest window a timer can hold (2^31 - 1 ms, about 24.8 days); the memory store's cleanup uses one. */
const MAX_WINDOW_MS = 2 ** 31 - 1;
const RATE_LIMIT_KEYS = ['windowMs', 'max', 'store', 'keyBy', 'auth'];
const AUTH_KEYS = ['windowMs', 'max', 'maxPerClient'];
const STORES = ['memory', 'mongo'] as const;

/** The limits; how clients are told apart (`keyBy`) is the resolved config's `clientKeyBy`. */
export interface ResolvedRateLimit {
  readonly windowMs: number;
  readonly max: number;
  readonly store: 'memory' | 'mongo';
  readonly auth: { readonly windowMs: number; readonly max: number; readonly maxPerClient: number };
}

function checkKeys(path: string, value: Record<string, unknown>, known: readonly string[], problems: string[]): void {
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) problems.push(`${path}.${key}: unknown option`);
  }
}

/** The count at `path`, or `fallback` when it is absent; a problem (and the fallback) when it is not an integer >= 1. */
function count(path: string, value: unknown, fallback: number, problems: string[]): number {
  if (value === undefined) return fallback;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 1) return value;
  problems.push(`${path}: must be an integer >= 1`);
  return fallback;
}

function window(path: string, value: unknown, fallback: number, problems: string[]): number {
  if (value === undefined) return fallback;
  if (typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_WINDOW_MS) return value;
  problems.push(`${path}: must be an integer number of milliseconds from 1 to ${MAX_WINDOW_MS}`);
  return fallback;
}

/** Checks and resolves `config.security.rateLimit`; the options are undefined when it is absent. */
export function parseRateLimitOptions(config: ContentConfig): ParsedOptions<ResolvedRateLimit | undefined> {
  const problems: string[] = [];
  const security: unknown = config.security;
  const options = isRecord(security) ? security.rateLimit : undefined;
  if (options === undefined) return { problems, options: undefined };
  const path = 'security.rateLimit';
  if (!isRecord(options)) return { problems: [`${path}: must be an object { windowMs, max, store, keyBy, auth }`], options: undefined };

  checkKeys(path, options, RATE_LIMIT_KEYS, problems);
  const windowMs = window(`${path}.windowMs`, options.windowMs, DEFAULT_WINDOW_MS, problems);
  const max = count(`${path}.max`, options.max, DEFAULT_MAX, problems);
  const store = STORES.find((name) => name === (options.store ?? 'memory'));
  if (!store) problems.push(`${path}.store: must be "memory" or "mongo"`);
  if (options.keyBy !== undefined && typeof options.keyBy !== 'function') problems.push(`${path}.keyBy: must be a function (req) => string`);
  const auth = options.auth ?? {};
  if (!isRecord(auth)) problems.push(`${path}.auth: must be an object { windowMs, max, maxPerClient }`);
  const authOptions = isRecord(auth) ? auth : {};
  if (isRecord(auth)) checkKeys(`${path}.auth`, auth, AUTH_KEYS, problems);
  const authWindowMs = window(`${path}.auth.windowMs`, authOptions.windowMs, DEFAULT_AUTH_WINDOW_MS, problems);
  const authMax = count(`${path}.auth.max`, authOptions.max, DEFAULT_AUTH_MAX, problems);
  return {
    problems,
    options: {
      windowMs,
      max,
      store: store ?? 'memory',
      auth: {
        windowMs: authWindowMs,
        max: authMax,
        maxPerClient: count(`${path}.auth.maxPerClient`, authOptions.maxPerClient, authMax * DEFAULT_AUTH_CLIENT_FACTOR, problems),
      },
    },
  };
}
