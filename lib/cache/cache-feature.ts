// The response cache as a feature: REST list and get-one reads of collections with `cache` answered from
// memory, and their list totals kept apart (count-cache.ts); entries dropped by this router's writes at
// once, by everyone else's through the change feed.
import { createHash } from 'node:crypto';
import type { Feature } from '../http/feature';
import { representationTag } from '../operations/precondition';
import type { ReadThrough, ResolvedRead } from '../operations/runtime';
import { type ResolvedCacheOptions, parseCacheOptions } from './cache-options';
import { type CacheStore, createCacheStore, serveThrough } from './cache-store';
import { createCountThrough } from './count-cache';
import { LIST_TAG, idTag, invalidateOnChange, relatedTag } from './invalidation';
import { readKey } from './read-key';

/**
 * A strong validator of the representation: a record's is the one every GET of it carries (If-Match
 * compares it); a list's covers the answer and the envelope it is sent in.
 */
function etagOf(read: ResolvedRead, value: unknown): string {
  if (read.kind === 'record') return representationTag(value);
  const envelope = 'envelope' in read.query ? read.query.envelope : '';
  const hash = createHash('sha1').update(`${read.kind}:${envelope}:`).update(JSON.stringify(value)).digest('base64url');
  return `"${hash}"`;
}

function createStores(options: ResolvedCacheOptions): Map<string, CacheStore> {
  return new Map([...options].map(([slug, { ttl, max }]) => [slug, createCacheStore(ttl, max)]));
}

function createReadThrough(stores: ReadonlyMap<string, CacheStore>): ReadThrough {
  return async (read, load) => {
    const { slug, variant } = read.args.collection.descriptor;
    const store = stores.get(slug);
    // Only callers that said they take shared answers (the REST routes); never a read with access overridden,
    // never a working copy (drafts are their editors' alone).
    if (!store || !read.cacheable || read.args.overrideAccess || variant === 'draft') return load();
    const { key, related } = await readKey(read);
    // Records of another collection shaped by its read hooks may depend on more than the caller's field view
    // (the caller itself): such an answer is never shared. The read collection's own hooks are the host's
    // choice, made with `cache` beside them.
    if (related.some((slug) => read.args.runtime.collections.get(slug)?.readHooks)) return load();
    // eslint-disable-next-line @typescript-eslint/no-non-null-assertion -- a record read always carries its id
    const tags = [read.kind === 'list' ? LIST_TAG : idTag(read.id!), ...related.map(relatedTag)];
    const served = await serveThrough(store, key, tags, load, (value) => etagOf(read, value));
    read.cacheable({ hit: served.hit, etag: served.etag });
    return served.value;
  };
}

/** `cache: { ttl, max? }` on a collection. */
export const cacheFeature: Feature<ResolvedCacheOptions> = {
  name: 'cache',
  options: parseCacheOptions,
  create(runtime, lifecycle, options) {
    const stores = createStores(options);
    if (stores.size === 0) return undefined;
    // Totals in stores of their own, with the same ttl and bound, so they never evict answers.
    const totals = createStores(options);
    const unsubscribe = invalidateOnChange(runtime, [stores, totals]);
    lifecycle.onClose.push(() => {
      unsubscribe();
      for (const store of [...stores.values(), ...totals.values()]) store.close();
    });
    return { hooks: { readThrough: [createReadThrough(stores)], countThrough: [createCountThrough(totals)] } };
  },
};
