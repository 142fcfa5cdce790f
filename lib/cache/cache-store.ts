// The cached answers of one collection: node-cache with a TTL, bounded to `max` entries (oldest evicted
// first), each entry tagged with what can make it stale (a record id, "any list", a related collection).
import NodeCache from 'node-cache';

/** One cached answer with the validator sent as its ETag. */
export interface CacheEntry {
  value: unknown;
  etag: string;
  tags: readonly string[];
}

/** A database read in flight whose answer may be stored: an invalidation of one of its tags meanwhile makes it stale. */
export interface ReadTicket {
  readonly tags: readonly string[];
  stale: boolean;
}

export interface CacheStore {
  get(key: string): CacheEntry | undefined;
  /** Registers a read about to hit the database, with the tags its answer will carry. */
  begin(tags: readonly string[]): ReadTicket;
  /** Stores the answer unless an invalidation touched the ticket's tags since begin (it may predate a write). Ends the ticket. */
  settle(ticket: ReadTicket, key: string, entry?: CacheEntry): void;
  /** Drops every entry carrying the tag. */
  invalidateTag(tag: string): void;
  /** Drops everything. */
  flush(): void;
  /** Entries held now. */
  size(): number;
  close(): void;
}

/** What a read through a store gave: the value, its validator, and whether the store had it. */
export interface Served<T> {
  value: T;
  etag: string;
  hit: boolean;
}

/**
 * `load` through `store` under `key`: the kept answer when there is one, else `load()`'s, kept with `tags`
 * unless a write touched one of them while it loaded (the answer may predate that write). A failed load
 * keeps nothing.
 */
export async function serveThrough<T>(
  store: CacheStore,
  key: string,
  tags: readonly string[],
  load: () => Promise<T>,
  etagOf: (value: T) => string,
): Promise<Served<T>> {
  const kept = store.get(key);
  if (kept) return { value: kept.value as T, etag: kept.etag, hit: true };
  const ticket = store.begin(tags);
  let value: T;
  try {
    value = await load();
  } catch (error) {
    store.settle(ticket, key);
    throw error;
  }
  const etag = etagOf(value);
  store.settle(ticket, key, { value, etag, tags });
  return { value, etag, hit: false };
}

/** Creates the store; `ttl` in seconds, `max` entries. Starts no timer (expired entries go on read or eviction). */
export function createCacheStore(ttl: number, max: number): CacheStore {
  // useClones false: answers are shared and never mutated; maxKeys left to us, to evict instead of failing.
  const cache = new NodeCache({ stdTTL: ttl, checkperiod: 0, useClones: false });
  /** Keys in insertion order: the first is the one to evict. */
  const order = new Set<string>();
  const byTag = new Map<string, Set<string>>();
  const inFlight = new Set<ReadTicket>();

  const forget = (key: string, entry: CacheEntry | undefined): void => {
    order.delete(key);
    for (const tag of entry?.tags ?? []) {
      const keys = byTag.get(tag);
      keys?.delete(key);
      if (keys?.size === 0) byTag.delete(tag);
    }
  };
  cache.on('del', forget);
  cache.on('expired', forget);

  const clear = (): void => {
    cache.flushAll();
    order.clear();
    byTag.clear();
  };

  return {
    get(key) {
      return cache.get<CacheEntry>(key);
    },
    begin(tags) {
      const ticket = { tags, stale: false };
      inFlight.add(ticket);
      return ticket;
    },
    settle(ticket, key, entry) {
      inFlight.delete(ticket);
      if (!entry || ticket.stale) return;
      if (order.has(key)) cache.del(key);
      for (const oldest of order) {
        if (order.size < max) break;
        cache.del(oldest);
        order.delete(oldest);
      }
      cache.set(key, entry);
      order.add(key);
      for (const tag of entry.tags) {
        let keys = byTag.get(tag);
        if (!keys) byTag.set(tag, (keys = new Set()));
        keys.add(key);
      }
    },
    invalidateTag(tag) {
      for (const ticket of inFlight) if (ticket.tags.includes(tag)) ticket.stale = true;
      const keys = byTag.get(tag);
      if (keys) cache.del([...keys]);
    },
    flush() {
      for (const ticket of inFlight) ticket.stale = true;
      clear();
    },
    size() {
      return order.size;
    },
    close() {
      inFlight.clear();
      clear();
      cache.close();
    },
  };
}
