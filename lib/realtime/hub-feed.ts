// Feeds the hub from the change bus: each collection change becomes one entry per record. This router's
// own writes are delivered at once from their local events; the change stream brings everyone else's,
// and its echoes of our own writes are dropped. Changes to an auth collection also make the affected
// users' clients re-check at once.
import { type ChangeEvent, rowsById } from '../changes/change-bus';
import { createEchoFilter } from '../changes/echo-filter';
import type { CollectionRuntime, Runtime } from '../operations/runtime';
import type { RawDoc } from '../schema/to-record';
import type { EventHub } from './event-hub';
import type { RealtimeClient } from './realtime-client';
import { type HubEntry, createEventIds, toHubEntries } from './realtime-event';

/** Reads the stored rows a publisher did not send (whole rows: constraints may name hidden fields). */
async function loadRows(collection: CollectionRuntime, ids: string[], rows: Map<string, RawDoc>): Promise<void> {
  const found = await collection.model.find({ _id: { $in: ids } }).lean<RawDoc[]>();
  for (const row of found) rows.set(String(row._id), row);
}

/** Subscribes the hub to the bus; returns the unsubscribe. */
export function connectHub(runtime: Runtime, hub: EventHub<HubEntry>, clients: ReadonlySet<RealtimeClient>): () => void {
  const nextId = createEventIds();
  const echoes = createEchoFilter();
  const { changes, config } = runtime;
  let queue: Promise<void> = Promise.resolve();
  let waiting = 0;
  let stopped = false;

  function publish(change: ChangeEvent, collection: CollectionRuntime, rows: ReadonlyMap<string, RawDoc>): void {
    if (stopped) return;
    for (const entry of toHubEntries(change, collection, rows, nextId, runtime.config.clock)) hub.publish(entry);
  }

  const unsubscribe = changes.onChange((event) => {
    if (event.scope !== 'collection') return;
    const collection = runtime.collections.get(event.slug);
    if (!collection) return;
    const rows = rowsById(event.docs);
    const change = echoes.news(event, rows, collection.descriptor.softDelete);
    if (!change) return;
    if (collection.descriptor.isAuth) {
      for (const client of clients) if (client.user && change.ids.includes(client.user.id)) void client.recheck();
    }
    const missing = change.type === 'delete' ? [] : change.ids.filter((id) => !rows.has(id));
    // The common case publishes at once; a change whose rows must be read waits, and so does every later
    // one, so clients always see a record's events in order.
    if (waiting === 0 && missing.length === 0) {
      publish(change, collection, rows);
      return;
    }
    waiting++;
    queue = queue
      .then(async () => {
        if (missing.length && !stopped) await loadRows(collection, missing, rows);
        publish(change, collection, rows);
      })
      .catch((error: unknown) => config.logger.error('content-router: a realtime event could not be published:', error))
      .finally(() => {
        waiting--;
      });
  });

  return () => {
    stopped = true;
    unsubscribe();
  };
}
