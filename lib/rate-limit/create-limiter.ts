// One express-rate-limit middleware: IETF draft-8 RateLimit/RateLimit-Policy headers, Retry-After, and a
// 429 that goes to the router's error handler as problem+json. A failing store lets the request through.
import type { Request, RequestHandler } from 'express';
import { type Store, rateLimit } from 'express-rate-limit';
import type { Logger } from '../config/types';
import { TooManyRequestsError } from '../errors';
import { type KeyOf, hasNoAddress, ipKey } from '../http/client-key';
import { RateLimitStoreError } from './store-health';

export interface LimiterOptions {
  /** The policy name in the RateLimit headers (`"api"`, `"auth"`). */
  name: string;
  windowMs: number;
  max: number;
  store: Store;
  /** Absent: express-rate-limit's own IP key, which also warns about a missing `trust proxy` (a request without an address: the IP key's placeholder). */
  keyOf?: KeyOf;
  logger: Required<Logger>;
}

/** express-rate-limit's findings about the host's setup carry an `ERR_ERL_*` code. */
function isSetupWarning(error: unknown): boolean {
  // (The cast reads one field of a value of unknown type; the field is checked before use.)
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('ERR_ERL_');
}

/**
 * The same store under another object: express-rate-limit refuses one store object in two limiters, and
 * would initialise it twice (a second cleanup timer in its MemoryStore). Counts, windows and keys are shared.
 */
function sameStore(store: Store): Store {
  return {
    prefix: store.prefix,
    localKeys: store.localKeys,
    increment: (key) => store.increment(key),
    decrement: (key) => store.decrement(key),
    resetKey: (key) => store.resetKey(key),
    ...(store.get ? { get: store.get.bind(store) } : {}),
  };
}

function createRateLimit(options: LimiterOptions, keyOf: KeyOf | undefined, store: Store): RequestHandler {
  const { logger } = options;
  return rateLimit({
    windowMs: options.windowMs,
    limit: options.max,
    store,
    keyGenerator: keyOf,
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

/** Creates one limiter; each needs a store of its own. */
export function createLimiter(options: LimiterOptions): RequestHandler {
  if (options.keyOf) return createRateLimit(options, options.keyOf, options.store);
  const byIp = createRateLimit(options, undefined, options.store);
  // express-rate-limit's IP key has no answer for a request without an address (a connection reset before it
  // was accepted): its headers would throw before the limit is even checked. Such requests count under the
  // IP key's placeholder instead, in the same store, so they are limited like any other.
  const byPlaceholder = createRateLimit(options, ipKey, sameStore(options.store));
  // Read as the request enters the router, before any wait: Node keeps the address it read then.
  return (req: Request, res, next) => (hasNoAddress(req) ? byPlaceholder : byIp)(req, res, next);
}
