// The event a realtime client receives, and how one change on the bus becomes such events: one per
// record, `doc` serialized like a REST record at depth 0 and `updatedFields` naming only fields a reader
// can see (hidden fields stripped from both), ids of their own; a soft delete made elsewhere is a delete.
import { randomBytes } from 'node:crypto';
import { type ChangeEvent, rowsById } from '../changes/change-bus';
import type { CollectionRuntime } from '../operations/runtime';
import { isSoftDelete } from '../operations/soft-delete-change';
import { findField } from '../query/find-field';
import { type CollectionDescriptor, storagePath } from '../schema/descriptors';
import type { ApiRecord, RawDoc } from '../schema/to-record';
import type { Clock } from '../util/clock';

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
  /**
   * Present when an update moved the record into or out of this reader's view (its read rule's where):
   * `entered-view` on a `create`, `left-view` on a `delete`. Absent on records really created or deleted.
   */
  reason?: 'entered-view' | 'left-view';
  /** ISO-8601. */
  timestamp: string;
}

/** An event as the hub carries it: the public event, the raw row readers' access is checked against, its JSON once. */
export interface HubEntry {
  readonly event: RealtimeEvent;
  /** Absent when the publisher had no row (then only readers without a constraint receive it). */
  readonly row?: RawDoc;
  /** Updates: the stored row just before the change, when known (see ChangeEvent.before). */
  readonly before?: RawDoc;
  /** Updates: the top-level stored fields the change set or removed, hidden ones included, when known. */
  readonly changed?: ReadonlySet<string>;
  /** How each constrained read rule (the ViewRule object) sees this entry (reader-view.ts), worked out once per rule; null: not sent. */
  views?: Map<object, HubEntry | null>;
  /** The entry as a create or a delete for readers it entered or left, made once and shared (with their JSON). */
  entered?: HubEntry;
  left?: HubEntry;
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
  clock: Clock,
): HubEntry[] {
  const timestamp = (change.timestamp ?? clock.now()).toISOString();
  const single = change.ids.length === 1;
  // The bus names every changed field (its other subscribers need hidden ones, such as a password):
  // stripped once here, for every origin, before any reader sees them.
  const updatedFields = change.type === 'update' && change.fields ? visibleFields(collection.descriptor, change.fields) : undefined;
  const changed = change.type === 'update' && change.fields ? changedFields(change, change.fields) : undefined;
  const previous = change.type === 'update' ? rowsById(change.before) : undefined;
  return change.ids.map((docId, index) => {
    const stored = rows.get(docId);
    const gone = isSoftDelete(change, collection, stored);
    // Checked as it was live: a delete reaches the readers who could read the record just before it went.
    const row = gone && stored ? { ...stored, deletedAt: null } : stored;
    const id = change.resumeToken !== undefined ? `${tokenText(change.resumeToken)}${single ? '' : `:${index}`}` : nextId();
    const event: RealtimeEvent = { id, type: gone ? 'delete' : change.type, collection: change.slug, docId, timestamp };
    if (row && event.type !== 'delete') event.doc = collection.serialize(row);
    if (updatedFields && !gone) event.updatedFields = updatedFields;
    if (!row) return { event };
    const before = gone ? undefined : previous?.get(docId);
    return { event, row, ...(before ? { before } : {}), ...(changed && !gone ? { changed } : {}) };
  });
}

/**
 * The top-level stored fields an update changed. The router's own updates name the fields of the body;
 * each also stamps updatedAt (a rule may read it), which the stream's descriptions name themselves.
 */
function changedFields(change: ChangeEvent, fields: readonly string[]): Set<string> {
  const changed = new Set(fields.map((name) => storagePath(name).split('.')[0]));
  if (change.origin === 'local') changed.add('updatedAt');
  return changed;
}

/** The names among `fields` that are fields of the collection a reader sees (not hidden, not unknown like `__v`). */
function visibleFields(collection: CollectionDescriptor, fields: readonly string[]): string[] {
  return fields.filter((name) => findField(collection, name) !== undefined);
}
