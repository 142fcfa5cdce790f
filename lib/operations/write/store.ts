// The driver writes of content records: the only place in lib/ that writes a collection's or a global's
// documents. Each write is one command that both applies the change and answers with the document it
// left (or removed): what a write reports, hooks and publishes is that answer, never a prediction. Every
// update moves the record's revision (schema/revision.ts); a write "at a revision" holds only where the
// revision is still the one its caller read, so nobody's change slips in between.
import type { ClientSession } from 'mongoose';
import type { RawDoc } from '../../schema/to-record';
import { REVISION, atRevision } from '../../schema/revision';
import type { CollectionRuntime } from '../runtime';
import { isDuplicateKeyError, rethrowWriteError } from '../write-errors';

/** `filter`, narrowed to the revision read: a write through it holds only while the record is still at `rev`. */
export function atRevisionOf(filter: Record<string, unknown>, row: { _rev?: unknown }): Record<string, unknown> {
  // Flat where the filter names no revision itself, so a server finds the record by its _id index at once.
  return Object.hasOwn(filter, REVISION) ? { $and: [filter, atRevision(row._rev)] } : { ...filter, ...atRevision(row._rev) };
}

/** Inserts one record; answers it as stored (defaults, timestamps, revision 1). A unique value taken is a 409. */
export async function insertRecord(collection: CollectionRuntime, set: Record<string, unknown>, session?: ClientSession): Promise<RawDoc> {
  const doc = new collection.model(set);
  try {
    await doc.save({ session });
  } catch (error) {
    rethrowWriteError(error, collection.descriptor);
  }
  return doc.toObject();
}

/** The document `set` would be stored as (defaults applied), before it exists for anyone to see. */
export function recordToInsert(collection: CollectionRuntime, set: Record<string, unknown>): RawDoc {
  return new collection.model(set).toObject();
}

/**
 * Applies `change` to the record `filter` matches; answers the whole row as the write left it (hidden fields
 * included: subscribers' access constraints may name them; serializers keep them out of answers), or null
 * when nothing matched. `upsert`: create it when nothing matches (globals).
 */
export async function updateRecord(
  collection: CollectionRuntime,
  filter: Record<string, unknown>,
  change: Record<string, unknown>,
  options: { session?: ClientSession; upsert?: boolean; system?: { timestamps: boolean } } = {},
): Promise<RawDoc | null> {
  // A system change (the server's own values: a hashed password, a token's hash) is stored as it is, with
  // updatedAt moved only when it is an edit of the record.
  const how = options.system ? { runValidators: false, timestamps: options.system.timestamps } : { runValidators: true };
  try {
    return await collection.model
      .findOneAndUpdate(filter, change, { returnDocument: 'after', ...how, session: options.session, ...(options.upsert ? { upsert: true, setDefaultsOnInsert: true } : {}) })
      .lean<RawDoc>();
  } catch (error) {
    rethrowWriteError(error, collection.descriptor);
  }
}

/** A delete as stored: the record before it, and (soft delete) after it. */
export interface StoredDelete {
  before: RawDoc;
  after?: RawDoc;
}

/**
 * Deletes the record `filter` matches: removes it, or, with `softAt`, stamps its deletedAt and updatedAt
 * with that instant. Answers the row before the delete (a soft delete: and after it), or null when nothing
 * matched.
 */
export async function deleteRecordAt(collection: CollectionRuntime, filter: Record<string, unknown>, softAt: Date | undefined, session?: ClientSession): Promise<StoredDelete | null> {
  if (!softAt) {
    const before = await collection.model.findOneAndDelete(filter, { session }).lean<RawDoc>();
    return before && { before };
  }
  const before = await collection.model.findOneAndUpdate(filter, { $set: { deletedAt: softAt, updatedAt: softAt } }, { returnDocument: 'before', timestamps: false, session }).lean<RawDoc>();
  if (!before) return null;
  // The change is known exactly: the stamps, and the revision one more (what the update's middleware adds).
  return { before, after: { ...before, deletedAt: softAt, updatedAt: softAt, _rev: (typeof before._rev === 'number' ? before._rev : 0) + 1 } };
}

/** Removes records just inserted, by id: a batch create undoing what landed before the database failed. */
export async function removeRecords(collection: CollectionRuntime, ids: readonly unknown[]): Promise<void> {
  if (ids.length) await collection.model.deleteMany({ _id: { $in: ids } });
}

/** How often, and for how long, the removal of a broken batch is tried again while the database is away. */
const REMOVAL_RETRY_MS = 500;
const REMOVAL_RETRY_FOR_MS = 10 * 60_000;

/**
 * removeRecords, tried again in the background while it fails (the database is away), until it succeeds or
 * ten minutes have passed; `removed` is told once it succeeded. Answers whether the first try succeeded.
 * Timers are real and unreferenced: they never keep the process alive.
 */
export async function removeRecordsEventually(collection: CollectionRuntime, ids: readonly unknown[], removed: () => Promise<void>): Promise<boolean> {
  const attempt = async (): Promise<boolean> => {
    try {
      await removeRecords(collection, ids);
    } catch {
      return false;
    }
    await removed().catch(() => undefined);
    return true;
  };
  if (await attempt()) return true;
  const started = performance.now();
  const retry = (): void => {
    setTimeout(() => {
      void attempt().then((done) => {
        if (!done && performance.now() - started < REMOVAL_RETRY_FOR_MS) retry();
      });
    }, REMOVAL_RETRY_MS).unref();
  };
  retry();
  return false;
}

/**
 * Stores `row` whole as the record with its id, replacing the one stored there (or inserting it): a working
 * copy made from its published record, the same document in the sibling collection.
 */
export async function replaceRecord(collection: CollectionRuntime, row: RawDoc, session?: ClientSession): Promise<void> {
  await collection.model.replaceOne({ _id: row._id }, row, { upsert: true, session, timestamps: false });
}

/**
 * Inserts `row` whole, as it is, unless a record with its id is stored already (another writer made it
 * first; that one stands): the first working copy of a published record.
 */
export async function insertCopy(collection: CollectionRuntime, row: RawDoc, session?: ClientSession): Promise<void> {
  try {
    await collection.model.collection.insertOne(row, { session });
  } catch (error) {
    if (!isDuplicateKeyError(error)) throw error;
  }
}
