// Tracks whether the rate-limit store answers, so an outage is reported once (not once per request)
// and its end once; requests pass unlimited meanwhile (express-rate-limit's passOnStoreError).
import type { Logger } from '../config/types';

/** What a failed store call throws: marked, so the per-request log line of express-rate-limit can be dropped. */
export class RateLimitStoreError extends Error {
  constructor(cause: unknown) {
    super('The rate-limit store failed.', { cause });
    this.name = 'RateLimitStoreError';
  }
}

export interface StoreHealth {
  /** Runs one store call: a failure is reported if the store was healthy, and rethrown marked. */
  guard<T>(call: () => Promise<T>): Promise<T>;
}

/** One per router: the general and auth limiters share a store, so they share its outage. */
export function createStoreHealth(logger: Required<Logger>): StoreHealth {
  let down = false;
  return {
    async guard(call) {
      try {
        const result = await call();
        if (down) {
          down = false;
          logger.info('content-router: the rate-limit store answers again; requests are limited again.');
        }
        return result;
      } catch (error) {
        if (!down) {
          down = true;
          logger.warn('content-router: the rate-limit store failed; requests pass without rate limiting until it answers again:', error);
        }
        throw new RateLimitStoreError(error);
      }
    },
  };
}
