// What makes a cached entry stale, as tags, and the one subscription to the change bus that drops them:
// shared by the response cache and the totals cache, whatever their entries hold.
import type { ChangeBus, ChangeEvent, ChangeReset } from '../operations/change-bus';
import type { CacheStore } from './cache-store';

/** Entries that depend on any record of their collection (lists, totals). */
export const LIST_TAG = 'list';
/** Entries that depend on one record of their collection. */
export const idTag = (id: string) => `id:${id}`;
/** Entries that read through another collection (population, relation filters). */
export const relatedTag = (slug: string) => `rel:${slug}`;

/** Drops what a change can have made stale, in every store (each store holds one collection's entries). */
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

/**
 * Keeps stores (by collection slug) in step with every write on the bus: this router's at once, other
 * processes' when the change feed watches the collection. Returns the unsubscribe function.
 */
export function invalidateOnChange(changes: ChangeBus, stores: ReadonlyMap<string, CacheStore>): () => void {
  const unsubscribe = [changes.onChange((event) => invalidate(stores, event)), changes.onReset((signal) => reset(stores, signal))];
  return () => {
    for (const stop of unsubscribe) stop();
  };
}
