// Whether a change is a soft delete: one made elsewhere (the driver, a bulk write's updateMany) reaches the
// change stream as an update setting deletedAt. Realtime and webhooks tell it the same way, here.
import type { RawDoc } from '../schema/to-record';
import type { ChangeEvent } from '../changes/change-bus';
import type { CollectionRuntime } from './runtime';

/**
 * True when `change`, an update of a soft-delete collection, deleted its record (this router's own soft
 * deletes are delete events already). The stream's description of the update says what it set; without one
 * (some servers give none), the stored row does.
 */
export function isSoftDelete(change: ChangeEvent, collection: CollectionRuntime, row: RawDoc | undefined): boolean {
  if (change.type !== 'update' || !collection.descriptor.softDelete) return false;
  const deletedAt = change.stamps ? change.stamps.deletedAt : row?.deletedAt;
  return deletedAt !== null && deletedAt !== undefined;
}
