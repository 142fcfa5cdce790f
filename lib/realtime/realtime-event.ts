// The event a realtime client receives, and how one change on the bus becomes such events: one per
// record, `doc` serialized like a REST record at depth 0 and `updatedFields` naming only fields a reader
// can see (hidden fields stripped from both), ids of their own; a soft delete made elsewhere is a delete.
import { randomBytes } from 'node:crypto';
import type { ChangeEvent } from '../operations/change-bus';
import type { CollectionRuntime } from '../operations/runtime';
import { isSoftDelete } from '../operations/soft-delete-change';
import { findField } from '../query/find-field';
import type { CollectionDescriptor } from '../schema/descriptors';
import type { ApiRecord, RawDoc } from '../schema/to-record';

/** What SSE sends as `data:` and WebSocket as a message. */
export interface RealtimeEvent {
  /** SSE `id:`: the change stream's resume token, or `<router>-<sequence>` for this router's own writes. */
  id: string;
  type: 'create' | 'update' | 'delete';
  collection: string;
  docId: string;
  /** Create and update: the record as GET /:slug/:id shows it at depth 0. Never on deletes. */
  doc?: ApiRecord;
  /**
   * Updates whose changed fields are known: those a reader can see (never a hidden field's name), empty
   * when only hidden fields changed.
   */
  updatedFields?: string[];
  /** ISO-8601. */
  timestamp: string;
}

/** An event as the hub carries it: the public event, the raw row readers' access is checked against, its JSON once. */
export interface HubEntry {
  readonly event: RealtimeEvent;
  /** Absent when the publisher had no row (then only readers without a constraint receive it). */
  readonly row?: RawDoc;
  /** The event as UTF-8 JSON, encoded by the first transport that sends it and shared by every client. */
  json?: Buffer;
  /** The SSE frame, likewise encoded once. */
  sse?: Buffer;
}

/** The entry's event as UTF-8 JSON, encoded once for every client (not once per socket). */
export function eventJson(entry: HubEntry): Buffer {
  entry.json ??= Buffer.from(JSON.stringify(entry.event));
  return entry.json;
}

/** Ids for this router's own events: unique to this process, so an id from another run never matches. */
export function createEventIds(): () => string {
  const run = randomBytes(4).toString('hex');
  let sequence = 0;
  return () => `${run}-${++sequence}`;
}

function tokenText(token: unknown): string {
  if (token && typeof token === 'object' && typeof (token as { _data?: unknown })._data === 'string') return (token as { _data: string })._data;
  return JSON.stringify(token);
}

/**
 * The hub entries of one collection change. `rows` are the stored documents by id (from the event,
 * or loaded by the caller when the publisher had none).
 */
export function toHubEntries(
  change: ChangeEvent,
  collection: CollectionRuntime,
  rows: ReadonlyMap<string, RawDoc>,
  nextId: () => string,
): HubEntry[] {
  const timestamp = (change.timestamp ?? new Date()).toISOString();
  const single = change.ids.length === 1;
  // The bus names every changed field (its other subscribers need hidden ones, such as a password):
  // stripped once here, for every origin, before any reader sees them.
  const updatedFields = change.type === 'update' && change.fields ? visibleFields(collection.descriptor, change.fields) : undefined;
  return change.ids.map((docId, index) => {
    const stored = rows.get(docId);
    const gone = isSoftDelete(change, collection, stored);
    // Checked as it was live: a delete reaches the readers who could read the record just before it went.
    const row = gone && stored ? { ...stored, deletedAt: null } : stored;
    const id = change.resumeToken !== undefined ? `${tokenText(change.resumeToken)}${single ? '' : `:${index}`}` : nextId();
    const event: RealtimeEvent = { id, type: gone ? 'delete' : change.type, collection: change.slug, docId, timestamp };
    if (row && event.type !== 'delete') event.doc = collection.serialize(row);
    if (updatedFields && !gone) event.updatedFields = updatedFields;
    return row ? { event, row } : { event };
  });
}

/** The names among `fields` that are fields of the collection a reader sees (not hidden, not unknown like `__v`). */
function visibleFields(collection: CollectionDescriptor, fields: readonly string[]): string[] {
  return fields.filter((name) => findField(collection, name) !== undefined);
}
