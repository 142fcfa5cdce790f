// Turns one change-stream document into the bus's ChangeEvent (origin `stream`), or says the stream
// lost its footing (a drop, rename or invalidate of the watched collection, or a drop of its database).
// Pure, so servers' quirks are handled and tested in one place.
import type { mongo } from 'mongoose';
import type { ChangeEvent, WriteStamps } from './change-bus';
import { isObjectId } from '../util/object-id';

/** What a watcher watches: one collection's records, or every global (one shared collection, `_id` = slug). */
export interface WatchTarget {
  scope: 'collection' | 'global';
  /** The collection's slug; for the globals collection, the slugs of every configured global. */
  slugs: readonly string[];
  /** The MongoDB collection name. */
  collectionName: string;
}

export type NormalizedChange = { kind: 'change'; event: ChangeEvent } | { kind: 'reset'; reason: string } | { kind: 'ignore' };

const TYPES: Record<string, ChangeEvent['type'] | undefined> = { insert: 'create', update: 'update', replace: 'update', delete: 'delete' };
const RESETS = new Set(['drop', 'rename', 'dropDatabase', 'invalidate']);

function idText(value: unknown): string | undefined {
  if (typeof value === 'string' && value !== '') return value;
  if (isObjectId(value)) return value.toHexString();
  return undefined;
}

/**
 * The stream's idea of when the change happened: wallTime (MongoDB 6+), else the cluster time's seconds;
 * undefined when it has neither (its consumers then date it by the router's clock).
 */
function timestampOf(change: Record<string, unknown>): Date | undefined {
  if (change.wallTime instanceof Date) return change.wallTime;
  const clusterTime = change.clusterTime as { getHighBits?: () => number; high?: number } | undefined;
  const seconds = clusterTime?.getHighBits?.() ?? clusterTime?.high;
  return typeof seconds === 'number' && seconds > 0 ? new Date(seconds * 1000) : undefined;
}

/** `{ timestamp }` when the stream dates the change, else nothing. */
function timestampEntry(change: Record<string, unknown>): { timestamp?: Date } {
  const timestamp = timestampOf(change);
  return timestamp ? { timestamp } : {};
}

/**
 * Normalises a change. The id comes from the full document first: some servers put something other
 * than `{ _id }` in an update's documentKey. An event whose id cannot be told keeps `ids: []`
 * (consumers then treat the whole collection as changed). `docs` only when the full document is whole;
 * `before` when an update (or replace) carries its pre-image.
 * `databaseName`: the watched collection's database, so a drop naming another database is told apart.
 */
export function normalizeChange(change: mongo.ChangeStreamDocument, target: WatchTarget, databaseName?: string): NormalizedChange {
  const raw = change as unknown as Record<string, unknown>;
  const operation = String(raw.operationType);
  if (RESETS.has(operation)) {
    if (!namesWatched(raw, operation, target, databaseName)) return { kind: 'ignore' };
    return { kind: 'reset', reason: `the collection "${target.collectionName}" saw "${operation}"` };
  }
  const type = TYPES[operation];
  if (!type) return { kind: 'ignore' };
  const full = raw.fullDocument && typeof raw.fullDocument === 'object' ? (raw.fullDocument as Record<string, unknown>) : undefined;
  const documentKey = raw.documentKey as Record<string, unknown> | undefined;
  const id = idText(full?._id) ?? idText(documentKey?._id);
  const update = describedUpdate(raw.updateDescription);
  const fields = update ? changedFields(update) : undefined;
  const base = { type, origin: 'stream' as const, resumeToken: raw._id, ...timestampEntry(raw), ...(update ? { stamps: stampsOf(update) } : {}) };
  if (target.scope === 'global') {
    // A document of the globals collection whose slug is not configured is not ours to report.
    if (id !== undefined && !target.slugs.includes(id)) return { kind: 'ignore' };
    const event: ChangeEvent = { ...base, scope: 'global', slug: id ?? target.slugs[0], ids: id ? [id] : [] };
    if (full && id) event.docs = [full];
    if (id === undefined) return { kind: 'reset', reason: 'a change to an unidentified global' };
    return { kind: 'change', event: withFields(event, fields) };
  }
  const event: ChangeEvent = { ...base, scope: 'collection', slug: target.slugs[0], ids: id ? [id] : [] };
  if (full && id && type !== 'delete') event.docs = [full];
  // The pre-image, where the collection records them (changeStreamPreAndPostImages) and the watcher asked.
  const before = raw.fullDocumentBeforeChange;
  if (before && typeof before === 'object' && id && type === 'update') event.before = [before as Record<string, unknown>];
  return { kind: 'change', event: withFields(event, fields) };
}

interface Namespace {
  db?: unknown;
  coll?: unknown;
}

/**
 * Whether a drop, rename, dropDatabase or invalidate is about the watched collection. MongoDB names the
 * namespace of the first three (a rename also names where it went) and sends an invalidate only to the
 * streams it ends, without one. Some servers (mongo-java-server) send every drop of the database to every
 * stream, naming none: such an event says nothing of the watched collection.
 */
function namesWatched(raw: Record<string, unknown>, operation: string, target: WatchTarget, databaseName: string | undefined): boolean {
  const ns = raw.ns as Namespace | undefined;
  const sameDb = (at: Namespace | undefined) => databaseName === undefined || at?.db === databaseName;
  if (operation === 'invalidate') return ns === undefined || (sameDb(ns) && ns.coll === target.collectionName);
  if (operation === 'dropDatabase') return ns !== undefined && sameDb(ns);
  const to = raw.to as Namespace | undefined;
  return [ns, to].some((at) => at !== undefined && sameDb(at) && at.coll === target.collectionName);
}

/** An update event's description of what it set and removed (top-level or dotted paths). */
interface DescribedUpdate {
  updated: Record<string, unknown>;
  removed: string[];
}

function describedUpdate(value: unknown): DescribedUpdate | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const description = value as Record<string, unknown>;
  const updated = description.updatedFields && typeof description.updatedFields === 'object' ? (description.updatedFields as Record<string, unknown>) : {};
  const removed = Array.isArray(description.removedFields) ? description.removedFields.map(String) : [];
  return { updated, removed };
}

function changedFields({ updated, removed }: DescribedUpdate): string[] | undefined {
  const fields = [...new Set([...Object.keys(updated), ...removed].map((path) => path.split('.')[0]))];
  return fields.length ? fields : undefined;
}

/** The timestamps the update set (a removed one as null): how an echo of this router's write is told apart. */
function stampsOf({ updated, removed }: DescribedUpdate): WriteStamps {
  const stamps: WriteStamps = {};
  for (const name of ['updatedAt', 'deletedAt'] as const) {
    if (name in updated) stamps[name] = updated[name];
    else if (removed.includes(name)) stamps[name] = null;
  }
  return stamps;
}

function withFields(event: ChangeEvent, fields: string[] | undefined): ChangeEvent {
  return fields ? { ...event, fields } : event;
}
