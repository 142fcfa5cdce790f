// A short-lived cache of the users behind access tokens and API keys, so an authenticated request
// usually costs no database read. Writes through this router drop the entry at once; writes made
// elsewhere (another instance, the mongo shell) show after at most `ttlSeconds`.
import NodeCache from 'node-cache';
import type { AuthUser } from '../config/types';
import type { ChangeBus } from '../changes/change-bus';

export interface UserCache {
  /** A copy of the cached user (without scopes), or undefined on a miss. */
  get(slug: string, id: string): AuthUser | undefined;
  set(slug: string, id: string, user: AuthUser): void;
  close(): void;
}

/** Bounds memory: past this many users, new ones are simply not cached. */
const MAX_USERS = 10_000;

const key = (slug: string, id: string) => `${slug}:${id}`;

/** Creates the cache; `ttlSeconds` 0 gives a cache that never holds anything. */
export function createUserCache(ttlSeconds: number, changes: ChangeBus): UserCache {
  if (ttlSeconds <= 0) return { get: () => undefined, set: () => undefined, close: () => undefined };
  // checkperiod 0: no interval timer (expired entries go on read), so nothing can keep the host alive.
  const cache = new NodeCache({ stdTTL: ttlSeconds, checkperiod: 0, useClones: false, maxKeys: MAX_USERS });
  const unsubscribe = changes.onChange((event) => {
    if (event.scope !== 'collection') return;
    for (const id of event.ids) cache.del(key(event.slug, id));
  });
  return {
    get(slug, id) {
      const user = cache.get<AuthUser>(key(slug, id));
      // A copy, so an access rule that mutates its user cannot change the next request's.
      return user && { ...user };
    },
    set(slug, id, user) {
      try {
        cache.set(key(slug, id), user);
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
