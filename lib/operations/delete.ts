// Delete and restore. On soft-delete collections DELETE stamps deletedAt (permanent=true removes);
// restore clears it. The access constraint and the id go into one atomic write.
//
// Delete: access -> the record, when hooks are told of it or If-Match names tags -> If-Match compared (412)
// -> beforeDelete (a throw vetoes) -> the write (at the revision compared) -> notify -> afterDelete (its
// failure is logged; the delete stands).
// Restore is an update of deletedAt: its beforeChange hooks may add fields, and afterChange and the read
// steps follow, as on an update.
import type { DeleteHookArgs } from '../config/hooks';
import { NotFoundError } from '../errors';
import { assertValidInput } from '../schema/validate-input';
import type { ApiRecord, RawDoc } from '../schema/to-record';
import { checkAccess, findableConstraint } from './access';
import { assertUnanswered } from './answered';
import { buildFilter, idCondition } from './build-filter';
import { hookBase, hooksSeeOriginal, reportAfterWrite, runAll, withAfterError } from './hooks';
import { type IfMatch, assertTagMatches, conditionalMiss, tagsToMatch } from './precondition';
import { prepareWrite } from './prepare-input';
import { presentFor } from './present-records';
import { atRevision } from '../schema/revision';
import { toRecordId } from './record-id';
import { publishWrite, type OperationArgs } from './runtime';
import { answerWrite } from './write-answer';

export interface DeleteArgs extends OperationArgs {
  id: string;
  /** Soft-delete collections: remove the record for good instead of stamping deletedAt. */
  permanent?: boolean;
  /** Write only if the record as this caller reads it has one of these ETags (412 otherwise); `*`: any. */
  ifMatch?: IfMatch;
}

/**
 * The filter a write goes through: with If-Match tags, the stored record is compared first (412) and the
 * write then holds only at the revision compared. Without tags, `filter` as it is.
 */
async function preconditioned(args: DeleteArgs, filter: Record<string, unknown>, stored: RawDoc | undefined, tags: readonly string[] | undefined): Promise<Record<string, unknown>> {
  if (!tags || !stored) return filter;
  assertTagMatches(tags, (await presentFor(args, [stored]))[0]);
  return { $and: [filter, atRevision(stored._rev)] };
}

async function idFilter(args: DeleteArgs, op: 'delete' | 'update', deleted: boolean | 'only'): Promise<Record<string, unknown>> {
  const _id = toRecordId(args.id);
  const constraint = await checkAccess({ ...args, op });
  // A record the caller may not read is not found, as its GET is not.
  const findable = await findableConstraint(args);
  return buildFilter({ ...args, nodes: [idCondition(args.collection, [_id]), constraint, findable], deleted });
}

/** Deletes (or soft-deletes) one record; throws NotFoundError when there is none the caller may delete. */
export function deleteRecord(args: DeleteArgs): Promise<{ deleted: true }> {
  return withAfterError(args, 'delete', async () => {
    const { collection } = args;
    const { beforeDelete, afterDelete } = collection.descriptor.hooks;
    const soft = collection.descriptor.softDelete && !args.permanent;
    const filter = await idFilter(args, 'delete', soft ? false : true);
    const tags = tagsToMatch(args.ifMatch);
    const hooked = beforeDelete.length > 0 || afterDelete.length > 0;
    const stored = hooked || tags ? await collection.model.findOne(filter).lean<RawDoc>() : undefined;
    if (stored === null) throw new NotFoundError('No record with this id.');
    const writeFilter = await preconditioned(args, filter, stored, tags);
    let hookArgs: DeleteHookArgs | undefined;
    if (stored && hooked) {
      hookArgs = { ...hookBase(args, 'delete'), operation: 'delete', id: String(stored._id), doc: collection.serializeAll(stored), permanent: !soft };
      await runAll(collection, 'hooks.beforeDelete', beforeDelete, hookArgs);
    }
    assertUnanswered(args);
    // One instant for both stamps, published with the event: the change stream's echo of this soft delete
    // carries them, and that is how it is told from another writer's delete (see echo-filter.ts).
    const now = args.runtime.config.clock.now();
    // Both return the row as it was before, so a delete event reaches only readers who could read it then.
    const before = soft
      ? await collection.model
          .findOneAndUpdate(writeFilter, { $set: { deletedAt: now, updatedAt: now } }, { returnDocument: 'before', timestamps: false })
          .lean<RawDoc>()
      : await collection.model.findOneAndDelete(writeFilter).lean<RawDoc>();
    if (!before) return conditionalMiss(tags ? collection.model.exists(filter) : Promise.resolve(false), new NotFoundError('No record with this id.'));
    // The stored id (lower-case hex), not the path's, which may spell it in upper case: events name records as they are.
    publishWrite(args, collection, 'delete', [String(before._id)], undefined, [before], soft ? { updatedAt: now, deletedAt: now } : undefined);
    if (hookArgs && afterDelete.length) {
      try {
        await runAll(collection, 'hooks.afterDelete', afterDelete, { ...hookArgs, doc: collection.serializeAll(before) });
      } catch (error) {
        await reportAfterWrite(args, 'delete', error);
      }
    }
    return { deleted: true };
  });
}

/** Restores a soft-deleted record (update access); throws NotFoundError unless it is deleted and updatable. */
export function restoreRecord(args: Omit<DeleteArgs, 'permanent'>): Promise<ApiRecord> {
  return withAfterError(args, 'restore', async () => {
    const { collection } = args;
    if (!collection.descriptor.softDelete) throw new NotFoundError('This collection has no soft delete.');
    const filter = await idFilter(args, 'update', 'only');
    const tags = tagsToMatch(args.ifMatch);
    const original = hooksSeeOriginal(collection) || tags ? await collection.model.findOne(filter).lean<RawDoc>() : undefined;
    if (original === null) throw new NotFoundError('No deleted record with this id.');
    // The deleted record as GET ?includeDeleted=true shows it is what the tag names.
    const writeFilter = await preconditioned(args, filter, original, tags);
    const previousDoc = original && collection.serializeAll(original);
    // The client sends no body: what beforeChange hooks add is written with the restore.
    const { input, data } = await prepareWrite({ ...args, trusted: true }, {}, { mode: 'update', operation: 'restore', originalDoc: previousDoc, id: args.id });
    assertValidInput(input.errors, 'The restore is not valid.');
    const change: Record<string, unknown> = { $set: { ...input.set, deletedAt: null } };
    if (input.unset.length) change.$unset = Object.fromEntries(input.unset.map((name) => [name, 1]));
    assertUnanswered(args);
    // The whole row (see update.ts): the read steps drop the hidden fields from the answer.
    const row = await collection.model.findOneAndUpdate(writeFilter, change, { returnDocument: 'after' }).lean<RawDoc>();
    if (!row) return conditionalMiss(tags ? collection.model.exists(filter) : Promise.resolve(false), new NotFoundError('No deleted record with this id.'));
    // The record as read before (when it was) is its state just before the restore only when written at its
    // revision. Otherwise what matters of it is still known: it was soft-deleted, so in no reader's view (a
    // read rule never shows a deleted record). Without it, a reader who cannot read the restored record would
    // be told it left its view: the id of a record it never could read.
    const before = tags && original ? [original] : [{ ...row, deletedAt: row.updatedAt ?? args.runtime.config.clock.now() }];
    publishWrite(args, collection, 'update', [String(row._id)], ['deletedAt', ...Object.keys(input.set), ...input.unset], [row], undefined, before);
    return answerWrite(args, 'restore', { row, data, previousDoc });
  });
}
