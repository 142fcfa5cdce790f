// THE SEAM: every change of a record the router stores passes through changeStored() exactly once, inside
// the session (the transaction, where the server has them) that stored it, with the record before and
// after, the actor and the fields changed. It is where a version of the record and an audit entry are to be
// written next, in that same session: a feature adds a ChangeRecorder to `runtime.hooks.changeStored`,
// and from then on every write that stores a change runs in a transaction where the server has them, so
// the record and what the recorder writes commit or roll back together (store-one.ts, store-each.ts).
// Publishing on the change bus (subscribers: caches, realtime, webhooks) happens later, after the commit,
// and only for changes that were stored: publishChange().
import type { ClientSession } from 'mongoose';
import type { AuthUser } from '../../config/types';
import type { WriteStamps } from '../../changes/change-bus';
import type { RawDoc } from '../../schema/to-record';
import type { CollectionRuntime, Runtime } from '../runtime';
import { noteWrite } from '../write-trace';

/** One stored change of one record (or global, or file), as the write read it back from the database. */
export interface StoredChange {
  readonly collection: Pick<CollectionRuntime, 'descriptor'>;
  /** What happened to the record, as the change bus names it (a restore is an update). */
  readonly type: 'create' | 'update' | 'delete';
  /** The operation that made the change. */
  readonly operation: 'create' | 'update' | 'delete' | 'restore';
  /** The record's id as stored (lower-case hex; a global's slug). */
  readonly id: string;
  /**
   * The record just before the change (raw: hidden fields included), when the write knows it: every write
   * made at a revision it read (bulk writes, If-Match, constrained updates, hooks, a feature asking for
   * the prior state), and every delete. Absent for a create, and for an unconditional single update.
   */
  readonly before?: RawDoc;
  /** The record as stored, the database's answer to the write itself; absent for a permanent delete. */
  readonly after?: RawDoc;
  /** Updates: the fields set or cleared (a restore: deletedAt too). */
  readonly fields?: readonly string[];
  /** A soft delete's (or restore's) stamps, for subscribers that see only `before` (ChangeEvent.stamps). */
  readonly stamps?: WriteStamps;
  /** Who made it: the caller, or null (anonymous, or a server-side call without a user). */
  readonly actor: AuthUser | null;
  /** Publish the id alone, no rows (files: their subscribers know them by id). */
  readonly idOnly?: boolean;
}

/** Records a stored change in the session that stored it (versions, audit); a failure rolls the write back. */
export type ChangeRecorder = (change: StoredChange, session: ClientSession | undefined) => Promise<void>;

/**
 * The one place where "a change was stored": called once per stored change, in the store's session, before
 * it commits. Runs every recorder features added; notes the write for the request's trace (what an
 * Idempotency-Key keeps depends on it).
 */
export async function changeStored(runtime: Runtime, change: StoredChange, session: ClientSession | undefined): Promise<void> {
  noteWrite();
  for (const record of runtime.hooks.changeStored) await record(change, session);
}

/** True when a write must run in a transaction (where the server has them): something records its changes. */
export function recordsChanges(runtime: Runtime): boolean {
  return runtime.hooks.changeStored.length > 0;
}

/** Tells the change bus of a stored (and committed) change, with the rows subscribers check access on. */
export function publishChange(runtime: Runtime, change: StoredChange): void {
  const { slug, isGlobal } = change.collection.descriptor;
  const rows = change.idOnly ? undefined : change.type === 'delete' ? change.before : change.after;
  runtime.changes.emitChange({
    scope: isGlobal ? 'global' : 'collection',
    slug,
    type: change.type,
    ids: [change.id],
    ...(change.fields ? { fields: [...change.fields] } : {}),
    ...(rows ? { docs: [rows] } : {}),
    ...(change.stamps ? { stamps: change.stamps } : {}),
    ...(change.type === 'update' && change.before && !change.idOnly ? { before: [change.before] } : {}),
    origin: 'local',
    timestamp: new Date(),
  });
}

/**
 * Publishes a write made outside the pipeline (auth's token flows write user records themselves, for now):
 * `docs` are the stored rows as the write left them (a delete: as they were before it), raw.
 */
export function publishWrite(
  runtime: Runtime,
  target: Pick<CollectionRuntime, 'descriptor'>,
  type: 'create' | 'update' | 'delete',
  ids: string[],
  fields?: string[],
  docs?: Record<string, unknown>[],
): void {
  const { slug, isGlobal } = target.descriptor;
  noteWrite();
  runtime.changes.emitChange({ scope: isGlobal ? 'global' : 'collection', slug, type, ids, ...(fields ? { fields } : {}), ...(docs ? { docs } : {}), origin: 'local', timestamp: new Date() });
}
