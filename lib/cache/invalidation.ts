// What makes a cached entry stale, as tags, and the one subscription to the change bus that drops them:
// shared by the response cache and the totals cache, whatever their entries hold.
import { type ChangeEvent, type ChangeReset, rowsById } from '../changes/change-bus';
import { createEchoFilter } from '../changes/echo-filter';
import type { Runtime } from '../operations/runtime';
import type { CacheStore } from './cache-store';

/** Entries that depend on any record of their collection (lists, totals). */
export const LIST_TAG = 'list';
/** Entries that depend on one record of their collection. */
export const idTag = (id: string) => `id:${id}`;
/** Entries that read through another collection (population, relation filters). */
export const relatedTag = (slug: string) => `rel:${slug}`;

/** Stores by collection slug: each holds one collection's entries. */
type Stores = ReadonlyMap<string, CacheStore>;

/** Drops what a change can have made stale, in every store. */
function invalidate(stores: Stores, event: ChangeEvent): void {
  const own = stores.get(event.slug);
  if (own) {
    // Without ids (a stream event some servers send without one) any record may have changed.
    if (event.ids.length === 0) own.flush();
    else {
      own.invalidateTag(LIST_TAG);
      // Entries are tagged with the stored (lower-case) form; publishers use it too, this only guards against a slip.
      for (const id of event.ids) own.invalidateTag(idTag(id.toLowerCase()));
    }
  }
  for (const store of stores.values()) store.invalidateTag(relatedTag(event.slug));
}

function reset(stores: Stores, signal: ChangeReset): void {
  if (signal.scope !== 'collection') return;
  for (const slug of signal.slugs) {
    stores.get(slug)?.flush();
    for (const store of stores.values()) store.invalidateTag(relatedTag(slug));
  }
}

/**
 * Keeps every group of stores (the answers, the totals) in step with every write on the bus: this router's
 * at once, other processes' when the change feed watches the collection. The stream's echo of a write of
 * this router drops nothing: the write already did, and an entry filled since then was read after it.
 * Returns the unsubscribe function.
 */
export function invalidateOnChange(runtime: Pick<Runtime, 'changes' | 'collections'>, groups: readonly Stores[]): () => void {
  const echoes = createEchoFilter();
  const unsubscribe = [
    runtime.changes.onChange((event) => {
      if (event.scope !== 'collection') return;
      const softDelete = runtime.collections.get(event.slug)?.descriptor.softDelete ?? false;
      const change = echoes.news(event, rowsById(event.docs), softDelete);
      if (change) for (const stores of groups) invalidate(stores, change);
    }),
    runtime.changes.onReset((signal) => {
      for (const stores of groups) reset(stores, signal);
    }),
  ];
  return () => {
    for (const stop of unsubscribe) stop();
  };
}
