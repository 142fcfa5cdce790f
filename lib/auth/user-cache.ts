// A short-lived cache of the users behind access tokens and API keys, so an authenticated request
// usually costs no database read. Writes through this router drop the entry at once; writes made
// elsewhere (another instance, the mongo shell) show after at most `ttlSeconds` of the router's clock.
// node-cache holds the entries and bounds their number (and drops them after the TTL in real time too);
// whether an entry is still fresh is decided by the router's clock, which node-cache cannot be given.
import NodeCache from 'node-cache';
import type { AuthUser } from '../config/types';
import type { ChangeBus } from '../changes/change-bus';
import { type Clock, nowMs } from '../util/clock';

export interface UserCache {
  /** A copy of the cached user (without scopes), or undefined on a miss. */
  get(slug: string, id: string): AuthUser | undefined;
  set(slug: string, id: string, user: AuthUser): void;
  close(): void;
}

/** Bounds memory: past this many users, new ones are simply not cached. */
const MAX_USERS = 10_000;

const key = (slug: string, id: string) => `${slug}:${id}`;

/** A cached user and the time (the router's clock, in ms) it stops being used. */
interface CachedUser {
  user: AuthUser;
  expiresAt: number;
}

/** Creates the cache; `ttlSeconds` 0 gives a cache that never holds anything. */
export function createUserCache(ttlSeconds: number, changes: ChangeBus, clock: Clock): UserCache {
  if (ttlSeconds <= 0) return { get: () => undefined, set: () => undefined, close: () => undefined };
  // checkperiod 0: no interval timer (expired entries go on read), so nothing can keep the host alive.
  const cache = new NodeCache({ stdTTL: ttlSeconds, checkperiod: 0, useClones: false, maxKeys: MAX_USERS });
  const unsubscribe = changes.onChange((event) => {
    if (event.scope !== 'collection') return;
    for (const id of event.ids) cache.del(key(event.slug, id));
  });
  return {
    get(slug, id) {
      const entry = cache.get<CachedUser>(key(slug, id));
      if (!entry) return undefined;
      if (nowMs(clock) >= entry.expiresAt) {
        cache.del(key(slug, id));
        return undefined;
      }
      // A copy, so an access rule that mutates its user cannot change the next request's.
      return { ...entry.user };
    },
    set(slug, id, user) {
      try {
        cache.set<CachedUser>(key(slug, id), { user, expiresAt: nowMs(clock) + ttlSeconds * 1000 });
      } catch {
        // ECACHEFULL: the bound is reached; this user is read from the database next time.
      }
    },
    close() {
      unsubscribe();
      cache.flushAll();
    },
  };
}
