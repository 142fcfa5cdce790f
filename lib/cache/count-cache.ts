// The totals cache: the exact total of a list filter kept per collection, so page 2, another sort or
// another envelope of the same question costs no second countDocuments. Keyed on the final Mongo filter.
import { createHash } from 'node:crypto';
import { mongoFilterKey } from '../query';
import type { CountThrough } from '../operations/runtime';
import { type CacheStore, serveThrough } from './cache-store';
import { LIST_TAG } from './invalidation';

/** Any write to the collection can change any of its totals; one shared array for every entry. */
const TOTAL_TAGS: readonly string[] = Object.freeze([LIST_TAG]);

/**
 * The key of a total: a digest of the canonical filter, so an entry's size does not grow with the filter
 * (a relation condition resolved to 10,000 ids is one 43-character key), and `max` entries bound the bytes
 * (about 300 bytes of heap each).
 * The filter holds everything the total depends on: the caller's read rule and soft-delete scope as
 * resolved, and relation conditions as the ids they matched when this request resolved them. A write to a
 * related collection therefore gives a new filter (a new key) rather than a stale total, and callers whose
 * rules differ have different filters, so they never share a total.
 */
function totalKey(filter: Record<string, unknown>): string {
  return createHash('sha256').update(mongoFilterKey(filter)).digest('base64url');
}

/** Answers repeated totals from `stores` (one per cached collection), for the reads the response cache serves too. */
export function createCountThrough(stores: ReadonlyMap<string, CacheStore>): CountThrough {
  return async ({ read, filter }, count) => {
    const store = stores.get(read.args.collection.descriptor.slug);
    // Same boundary as the response cache: REST reads only, so the local API always counts afresh, and never
    // a working copy's total (the drafts' collection shares the slug, not the records).
    if (!store || !read.cacheable || read.args.overrideAccess || read.args.collection.descriptor.variant === 'draft') return count();
    // Totals have no representation of their own to validate: no ETag.
    return (await serveThrough(store, totalKey(filter), TOTAL_TAGS, count, () => '')).value;
  };
}
