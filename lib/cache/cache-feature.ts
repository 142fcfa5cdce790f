// The response cache as a feature: REST list and get-one reads of collections with `cache` answered from
// memory; entries dropped by this router's writes at once, by everyone else's through the change feed.
import { createHash } from 'node:crypto';
import type { Feature } from '../http/feature';
import type { ChangeEvent, ChangeReset } from '../operations/change-bus';
import type { ReadThrough, ResolvedRead, Runtime } from '../operations/runtime';
import { resolveCacheOptions, validateCacheOptions } from './cache-options';
import { type CacheStore, createCacheStore } from './cache-store';
import { readKey } from './read-key';

/** Tags an entry carries: what can make it stale. */
const LIST_TAG = 'list';
const idTag = (id: string) => `id:${id}`;
const relatedTag = (slug: string) => `rel:${slug}`;

/** A strong validator of the representation: the answer and, for lists, the envelope it is sent in. */
function etagOf(read: ResolvedRead, value: unknown): string {
  const envelope = 'envelope' in read.query ? read.query.envelope : '';
  const hash = createHash('sha1').update(`${read.kind}:${envelope}:`).update(JSON.stringify(value)).digest('base64url');
  return `"${hash}"`;
}

function createStores(runtime: Runtime): Map<string, CacheStore> {
  const stores = new Map<string, CacheStore>();
  for (const collection of runtime.config.collections) {
    if (!collection.cache) continue;
    const { ttl, max } = resolveCacheOptions(collection.cache);
    stores.set(collection.slug, createCacheStore(ttl, max));
  }
  return stores;
}

/** Drops what a change can have made stale, in every store. */
function invalidate(stores: ReadonlyMap<string, CacheStore>, event: ChangeEvent): void {
  if (event.scope !== 'collection') return;
  const own = stores.get(event.slug);
  if (own) {
    // Without ids (a stream event some servers send without one) any record may have changed.
    if (event.ids.length === 0) own.flush();
    else {
      own.invalidateTag(LIST_TAG);
      // Lower-cased: a path id may name a record in upper-case hex, entries are tagged with the stored form.
      for (const id of event.ids) own.invalidateTag(idTag(id.toLowerCase()));
    }
  }
  for (const store of stores.values()) store.invalidateTag(relatedTag(event.slug));
}

function reset(stores: ReadonlyMap<string, CacheStore>, signal: ChangeReset): void {
  if (signal.scope !== 'collection') return;
  for (const slug of signal.slugs) {
    stores.get(slug)?.flush();
    for (const store of stores.values()) store.invalidateTag(relatedTag(slug));
  }
}

function createReadThrough(stores: ReadonlyMap<string, CacheStore>): ReadThrough {
  return async (read, load) => {
    const store = stores.get(read.args.collection.descriptor.slug);
    // Only callers that said they take shared answers (the REST routes); never a read with access overridden.
    if (!store || !read.cacheable || read.args.overrideAccess) return load();
    const { key, related } = await readKey(read);
    const hit = store.get(key);
    if (hit) {
      read.cacheable({ hit: true, etag: hit.etag });
      return hit.value as Awaited<ReturnType<typeof load>>;
    }
    const tags = [read.kind === 'list' ? LIST_TAG : idTag(read.id!), ...related.map(relatedTag)];
    const ticket = store.begin(tags);
    let value: Awaited<ReturnType<typeof load>>;
    try {
      value = await load();
    } catch (error) {
      store.settle(ticket, key);
      throw error;
    }
    const etag = etagOf(read, value);
    store.settle(ticket, key, { value, etag, tags });
    read.cacheable({ hit: false, etag });
    return value;
  };
}

/** `cache: { ttl, max? }` on a collection. */
export const cacheFeature: Feature = {
  name: 'cache',
  validate: validateCacheOptions,
  create(runtime) {
    const stores = createStores(runtime);
    if (stores.size === 0) return undefined;
    const unsubscribe = [
      runtime.changes.onChange((event) => invalidate(stores, event)),
      runtime.changes.onReset((signal) => reset(stores, signal)),
    ];
    return {
      hooks: { readThrough: [createReadThrough(stores)] },
      close() {
        for (const stop of unsubscribe) stop();
        for (const store of stores.values()) store.close();
      },
    };
  },
};
