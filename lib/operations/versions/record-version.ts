// Appends a version of a record to its history for every stored change of a versioned collection, inside
// the session that stored the change (a recorder at the write pipeline's seam, write/stored-change.ts), so
// the record and its version commit or roll back together where the server has transactions.
//
// The version's number is the record's newest + 1, read in that session; two writers that read the same
// newest meet on the unique { record, version } index: inside a transaction the server aborts one (the
// driver runs it again), without one the loser reads the newest again and takes the next number. A draft
// save by the caller who made the record's newest version, a draft save too, within `coalesce` of it,
// replaces that version's content in place (same number): autosave does not flood the history.
import { isDeepStrictEqual } from 'node:util';
import type { ClientSession, Model } from 'mongoose';
import { isSystemActor } from '../../config/user';
import type { RawDoc } from '../../schema/to-record';
import type { StoredVersion, VersionActor, VersionOp } from '../../schema/version-schema';
import type { Clock } from '../../util/clock';
import type { ChangeRecorder, CollectionRuntime, StoredChange } from '../runtime';
import { recorderFor } from '../write/stored-change';

/** Tries at taking the next number before the write fails (only without a transaction: each miss means another writer took one). */
const MAX_NUMBER_ATTEMPTS = 20;
/** MongoDB's duplicate key error. */
const DUPLICATE_KEY = 11000;

/** The number each recorded change's version got (retention, after the commit, reads it). */
const recorded = new WeakMap<StoredChange, number>();

/** The version number the change was recorded as, once it was; undefined for a change of an unversioned collection. */
export function recordedVersion(change: StoredChange): number | undefined {
  return recorded.get(change);
}

/** True for a collection (or global, or working copies) that keeps a history: the only ones whose writes are recorded. */
export function keepsHistory(collection: Pick<CollectionRuntime, 'versions'>): boolean {
  return collection.versions !== undefined;
}

/** The recorder of versions, stamping them on `clock`; nothing for a collection without `versions`. */
export function versionRecorder(clock: Clock): ChangeRecorder {
  return recorderFor(keepsHistory, async (change, session) => {
    const { collection } = change;
    const history = collection.versions;
    const options = collection.descriptor.versions;
    if (!history || !options) return;
    // A delete's version holds the record as it was: what a restore brings back.
    const doc = change.type === 'delete' ? change.before : change.after;
    if (!doc) return;
    const op = versionOpOf(change);
    const actor = versionActorOf(change);
    const record = doc._id;
    const now = clock.now();
    for (let attempt = 1; ; attempt++) {
      // Its number and what coalescing compares, never its record (`doc`, the whole stored record).
      const newest = await newestVersion(history, record, session, SUMMARY_ONLY);
      if (op === 'draft' && newest && coalesces(newest, actor, now, options.coalesceMs)) {
        const changedFields = [...new Set([...newest.changedFields, ...changedFieldsOf(change)])];
        await history.updateOne({ _id: newest._id }, { $set: { doc, createdAt: now, changedFields } }, { session });
        recorded.set(change, newest.version);
        return;
      }
      const version = (newest?.version ?? 0) + 1;
      const published = collection.descriptor.variant !== 'draft' && change.type !== 'delete';
      try {
        // A plain insert: the version is built here whole, so the model's casting and validation would only cost.
        await history.collection.insertOne({ record, version, op, createdAt: now, actor, changedFields: changedFieldsOf(change), doc, published }, { session });
        recorded.set(change, version);
        return;
      } catch (error) {
        // Inside a transaction the server has aborted it already: the driver runs the write again.
        if (!isDuplicateKey(error) || session?.inTransaction() || attempt >= MAX_NUMBER_ATTEMPTS) throw error;
      }
    }
  });
}

function isDuplicateKey(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === DUPLICATE_KEY;
}

/** A version without its record: what numbering and coalescing read. */
const SUMMARY_ONLY: Readonly<Record<string, 0>> = Object.freeze({ doc: 0 });

/** The record's newest version, read in the write's session (`projection`: leave fields out). */
export function newestVersion(history: Model<Record<string, unknown>>, record: unknown, session?: ClientSession, projection?: Record<string, 0>): Promise<StoredVersion | null> {
  return history.findOne({ record }, projection ?? null, { session }).sort({ version: -1 }).lean<StoredVersion>().exec();
}

/** True when a draft save by `actor` at `now` replaces `newest` rather than following it. */
function coalesces(newest: StoredVersion, actor: VersionActor, now: Date, coalesceMs: number): boolean {
  if (coalesceMs <= 0 || newest.op !== 'draft') return false;
  const since = now.getTime() - new Date(newest.createdAt).getTime();
  return since >= 0 && since <= coalesceMs && sameActor(newest.actor, actor);
}

function sameActor(a: VersionActor, b: VersionActor): boolean {
  return a.id === b.id && a.collection === b.collection && a.apiKeyId === b.apiKeyId && a.origin === b.origin;
}

/** What the change is to the record's history: what its write said (a publish...), else its operation. */
function versionOpOf(change: StoredChange): VersionOp {
  if (change.versionOp) return change.versionOp;
  if (change.collection.descriptor.variant === 'draft') return 'draft';
  if (change.type === 'create') return 'create';
  if (change.type === 'delete') return 'delete';
  return change.operation === 'restore' ? 'restore' : 'update';
}

/** Who made the change, as a version keeps it: the caller's identity, never its role, scopes or other claims. */
function versionActorOf(change: StoredChange): VersionActor {
  const { actor, origin } = change;
  if (!actor || isSystemActor(actor)) return { origin };
  return {
    ...(typeof actor.id === 'string' && { id: actor.id }),
    ...(typeof actor.collection === 'string' && { collection: actor.collection }),
    ...(typeof actor.apiKeyId === 'string' && { apiKeyId: actor.apiKeyId }),
    origin,
  };
}

/**
 * The fields the change changed (hidden ones too: the routes leave out what a caller may not read): compared
 * value by value where the record before is known, else the fields the write set or cleared.
 */
function changedFieldsOf(change: StoredChange): string[] {
  const names = Object.values(change.collection.descriptor.fields).filter((field) => !field.system).map((field) => field.name);
  const before: RawDoc | undefined = change.type === 'create' ? {} : change.before;
  const after: RawDoc | undefined = change.type === 'delete' ? (change.after ?? {}) : change.after;
  if (before && after) return names.filter((name) => !isDeepStrictEqual(before[name] ?? null, after[name] ?? null));
  const written = new Set(change.fields ?? []);
  return names.filter((name) => written.has(name));
}
