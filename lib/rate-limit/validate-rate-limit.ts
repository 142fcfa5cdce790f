// Checks `security.rateLimit` (the core checks `security` itself): known keys only, positive integer limits and windows,
// a known store, keyBy a function. Problems are named by path, like every other config problem.
import type { ContentConfig } from '../config/types';
import { isRecord } from '../util/is-record';

/** Longest window a timer can hold (2^31 - 1 ms, about 24.8 days); the memory store's cleanup uses one. */
const MAX_WINDOW_MS = 2 ** 31 - 1;
const RATE_LIMIT_KEYS = ['windowMs', 'max', 'store', 'keyBy', 'auth'];
const AUTH_KEYS = ['windowMs', 'max', 'maxPerClient'];
const STORES = ['memory', 'mongo'];

function checkKeys(path: string, value: Record<string, unknown>, known: readonly string[], problems: string[]): void {
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) problems.push(`${path}.${key}: unknown option`);
  }
}

function checkCount(path: string, value: unknown, problems: string[]): void {
  if (value !== undefined && !(typeof value === 'number' && Number.isSafeInteger(value) && value >= 1)) {
    problems.push(`${path}: must be an integer >= 1`);
  }
}

function checkWindow(path: string, value: unknown, problems: string[]): void {
  if (value !== undefined && !(typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_WINDOW_MS)) {
    problems.push(`${path}: must be an integer number of milliseconds from 1 to ${MAX_WINDOW_MS}`);
  }
}

/** Problems in `config.security.rateLimit`; none when it is absent. */
export function validateRateLimitConfig(config: ContentConfig): string[] {
  const problems: string[] = [];
  const security: unknown = config.security;
  if (!isRecord(security)) return problems;
  const options = security.rateLimit;
  if (options === undefined) return problems;
  const path = 'security.rateLimit';
  if (!isRecord(options)) return [...problems, `${path}: must be an object { windowMs, max, store, keyBy, auth }`];

  checkKeys(path, options, RATE_LIMIT_KEYS, problems);
  checkWindow(`${path}.windowMs`, options.windowMs, problems);
  checkCount(`${path}.max`, options.max, problems);
  if (options.store !== undefined && !STORES.includes(options.store as string)) {
    problems.push(`${path}.store: must be "memory" or "mongo"`);
  }
  if (options.keyBy !== undefined && typeof options.keyBy !== 'function') problems.push(`${path}.keyBy: must be a function (req) => string`);
  const auth = options.auth;
  if (auth !== undefined) {
    if (!isRecord(auth)) problems.push(`${path}.auth: must be an object { windowMs, max, maxPerClient }`);
    else {
      checkKeys(`${path}.auth`, auth, AUTH_KEYS, problems);
      checkWindow(`${path}.auth.windowMs`, auth.windowMs, problems);
      checkCount(`${path}.auth.max`, auth.max, problems);
      checkCount(`${path}.auth.maxPerClient`, auth.maxPerClient, problems);
    }
  }
  return problems;
}
