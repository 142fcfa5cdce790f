// The rate-limit options with their defaults filled in, resolved once when the router is built.
// Validation (validate-rate-limit.ts) has already refused anything malformed.
import type { Request } from 'express';
import type { ContentConfig } from '../config/types';

export const DEFAULT_WINDOW_MS = 60_000;
export const DEFAULT_MAX = 100;
export const DEFAULT_AUTH_WINDOW_MS = 15 * 60_000;
export const DEFAULT_AUTH_MAX = 10;
/** The per-client bound of the credential routes is this many times the per-account limit by default. */
export const DEFAULT_AUTH_CLIENT_FACTOR = 5;

export interface ResolvedRateLimit {
  windowMs: number;
  max: number;
  store: 'memory' | 'mongo';
  keyBy?: (req: Request) => string;
  auth: { windowMs: number; max: number; maxPerClient: number };
}

/** The options of `security.rateLimit`, or undefined when rate limiting is not configured. */
export function resolveRateLimitOptions(config: ContentConfig): ResolvedRateLimit | undefined {
  const options = config.security?.rateLimit;
  if (!options) return undefined;
  const authMax = options.auth?.max ?? DEFAULT_AUTH_MAX;
  return {
    windowMs: options.windowMs ?? DEFAULT_WINDOW_MS,
    max: options.max ?? DEFAULT_MAX,
    store: options.store ?? 'memory',
    keyBy: options.keyBy,
    auth: {
      windowMs: options.auth?.windowMs ?? DEFAULT_AUTH_WINDOW_MS,
      max: authMax,
      maxPerClient: options.auth?.maxPerClient ?? authMax * DEFAULT_AUTH_CLIENT_FACTOR,
    },
  };
}
