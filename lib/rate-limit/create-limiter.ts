// One express-rate-limit middleware: IETF draft-8 RateLimit/RateLimit-Policy headers, Retry-After, and a
// 429 that goes to the router's error handler as problem+json. A failing store lets the request through.
import type { RequestHandler } from 'express';
import { type Store, rateLimit } from 'express-rate-limit';
import type { Logger } from '../config/types';
import { TooManyRequestsError } from '../errors';
import type { KeyOf } from '../http/client-key';
import { RateLimitStoreError } from './store-health';

export interface LimiterOptions {
  /** The policy name in the RateLimit headers (`"api"`, `"auth"`). */
  name: string;
  windowMs: number;
  max: number;
  store: Store;
  /** Absent: express-rate-limit's own IP key, which also warns about a missing `trust proxy`. */
  keyOf?: KeyOf;
  logger: Required<Logger>;
}

/** express-rate-limit's findings about the host's setup carry an `ERR_ERL_*` code. */
function isSetupWarning(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('ERR_ERL_');
}

/** Creates one limiter; each needs a store of its own. */
export function createLimiter(options: LimiterOptions): RequestHandler {
  const { logger } = options;
  return rateLimit({
    windowMs: options.windowMs,
    limit: options.max,
    store: options.store,
    keyGenerator: options.keyOf,
    identifier: options.name,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    passOnStoreError: true,
    logger: {
      // The store's outage is reported once by store-health; express-rate-limit would log every request.
      error: (error, message) => {
        if (error instanceof RateLimitStoreError) return;
        // Its checks of the host's setup (trust proxy, a keyBy using req.ip) run once each: a warning, not a failure.
        if (isSetupWarning(error)) logger.warn('content-router: rate limit:', (error as Error).message);
        else logger.error(`content-router: rate limit: ${message ?? ''}`, error);
      },
      warn: (error, message) => logger.warn(`content-router: rate limit: ${message ?? ''}`, error),
    },
    // express-rate-limit has set Retry-After and the RateLimit headers; the error handler keeps them.
    handler: (_req, res, next) => next(new TooManyRequestsError(Number(res.getHeader('Retry-After')) || 1)),
  });
}
