// An express-rate-limit Store over the router's own Mongo connection, so every instance of the router
// on one database shares one count per client. One row per key: { _id, hits, resetAt }.
import type { ClientRateLimitInfo, Options, Store } from 'express-rate-limit';
import type { Connection } from 'mongoose';
import { isDuplicateKeyError } from '../operations/write-errors';
import type { StoreHealth } from './store-health';
import type { Clock } from '../util/clock';

/** Not a valid collection slug (it has a dot), so it never collides with a configured collection. */
export const RATE_LIMIT_COLLECTION = 'content-router.rate-limits';

interface HitRow {
  _id: string;
  hits: number;
  resetAt: Date;
}

/** Tries before giving up on a key other instances keep recreating (each retry follows a real write). */
const MAX_ATTEMPTS = 3;

/** Expired rows are removed by a TTL index; every read compares resetAt itself, so the index is housekeeping. */
export async function createRateLimitIndexes(connection: Connection): Promise<void> {
  await connection.collection<HitRow>(RATE_LIMIT_COLLECTION).createIndexes([{ key: { resetAt: 1 }, expireAfterSeconds: 0 }]);
}

/**
 * A store whose keys start with `prefix` (one per limiter). rate-limit-mongo is not used: given a URI it
 * opens a connection of its own (with its bundled driver 3), given the router's collection it calls the
 * driver with callbacks, which the current driver never invokes (every request would hang), and its
 * windows end only when the TTL monitor deletes a row (up to a minute late).
 */
/** `clock`: the router's; windows open and end in its time. */
export function createMongoStore(connection: Connection, prefix: string, health: StoreHealth, clock: Clock): Store {
  const rows = connection.collection<HitRow>(RATE_LIMIT_COLLECTION);
  let windowMs = 60_000;

  /** Counts a hit in the current window, or opens a new window; atomic against other instances. */
  async function increment(key: string, attempt = 1): Promise<ClientRateLimitInfo> {
    const now = clock.now();
    const live = await rows.findOneAndUpdate({ _id: key, resetAt: { $gt: now } }, { $inc: { hits: 1 } }, { returnDocument: 'after' });
    if (live) return { totalHits: live.hits, resetTime: live.resetAt };
    const resetAt = new Date(now.getTime() + windowMs);
    try {
      // Matches only an expired row; when another instance has just opened a window, the upsert's
      // insert hits the unique _id and the first step counts into that window instead.
      const fresh = await rows.findOneAndUpdate(
        { _id: key, resetAt: { $lte: now } },
        { $set: { hits: 1, resetAt } },
        { upsert: true, returnDocument: 'after' },
      );
      return { totalHits: fresh?.hits ?? 1, resetTime: fresh?.resetAt ?? resetAt };
    } catch (error) {
      if (isDuplicateKeyError(error) && attempt < MAX_ATTEMPTS) return increment(key, attempt + 1);
      throw error;
    }
  }

  return {
    prefix,
    localKeys: false,
    init(options: Options) {
      windowMs = options.windowMs;
    },
    get: (key) =>
      health.guard(async () => {
        const row = await rows.findOne({ _id: prefix + key, resetAt: { $gt: clock.now() } });
        return row ? { totalHits: row.hits, resetTime: row.resetAt } : undefined;
      }),
    increment: (key) => health.guard(() => increment(prefix + key)),
    decrement: (key) =>
      health.guard(async () => {
        await rows.updateOne({ _id: prefix + key, resetAt: { $gt: clock.now() }, hits: { $gt: 0 } }, { $inc: { hits: -1 } });
      }),
    resetKey: (key) =>
      health.guard(async () => {
        await rows.deleteOne({ _id: prefix + key });
      }),
  };
}
