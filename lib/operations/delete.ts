// Delete and restore, users of the write pipeline (write/pipeline.ts). On soft-delete collections DELETE
// stamps deletedAt (permanent=true removes); restore clears it. The access constraint and the id go into
// one atomic write.
//
// Delete: 1. access -> the record, when hooks are told of it or If-Match names tags -> 2. If-Match
// compared (412) -> beforeDelete (a throw vetoes) -> 3-4. the write (at the revision read, when one was),
// recorded at the seam -> 5-6. publish, afterDelete (its failure is logged; the delete stands).
// Restore is an update of deletedAt: its beforeChange hooks may add fields, and afterChange and the read
// steps follow, as on an update.
import type { DeleteHookArgs } from '../config/hooks';
import { NotFoundError } from '../errors';
import { assertValidInput } from '../schema/validate-input';
import type { ApiRecord, RawDoc } from '../schema/to-record';
import { findableConstraint } from './access';
import { buildFilter, idCondition } from './build-filter';
import { hookBase, hooksSeeOriginal, runAll } from './hooks';
import { withAfterError } from './after-error';
import { type IfMatch, assertTagMatches, conditionalMiss, tagsToMatch } from './precondition';
import { prepareWrite } from './prepare-input';
import { presentFor } from './present-records';
import { toRecordId } from './record-id';
import type { OperationArgs } from './runtime';
import { answerStored, finishDelete, storeDelete, storeOne, storeUpdate } from './write/pipeline';
import { checkWriteAccess } from './drafts/publish-access';

export interface DeleteArgs extends OperationArgs {
  id: string;
  /** Soft-delete collections: remove the record for good instead of stamping deletedAt. */
  permanent?: boolean;
  /** Write only if the record as this caller reads it has one of these ETags (412 otherwise); `*`: any. */
  ifMatch?: IfMatch;
}

/** With If-Match tags, the stored record as this caller reads it must have one of them (412). */
async function assertPrecondition(args: DeleteArgs, stored: RawDoc | undefined, tags: readonly string[] | undefined): Promise<void> {
  if (tags && stored) assertTagMatches(tags, (await presentFor(args, [stored]))[0]);
}

async function idFilter(args: DeleteArgs, op: 'delete' | 'update', deleted: boolean | 'only'): Promise<Record<string, unknown>> {
  const _id = toRecordId(args.id);
  const constraint = await checkWriteAccess({ ...args, op });
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
    await assertPrecondition(args, stored, tags);
    let hookArgs: DeleteHookArgs | undefined;
    if (stored && hooked) {
      hookArgs = { ...hookBase(args, 'delete'), operation: 'delete', id: String(stored._id), doc: collection.serializeAll(stored), permanent: !soft };
      await runAll(collection, 'hooks.beforeDelete', beforeDelete, hookArgs);
    }
    // One instant for both stamps, published with the event: the change stream's echo of this soft delete
    // carries them, and that is how it is told from another writer's delete (see echo-filter.ts).
    const softAt = soft ? args.runtime.config.clock.now() : undefined;
    // With If-Match, only at the revision compared; the record removed is the driver's answer either way.
    const change = await storeOne(args, (session) => storeDelete(args, { filter, stored: tags && stored, softAt, session }));
    if (!change) return conditionalMiss(tags ? collection.model.exists(filter) : Promise.resolve(false), new NotFoundError('No record with this id.'));
    await finishDelete(args, change, hookArgs);
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
    await assertPrecondition(args, original, tags);
    const previousDoc = original && collection.serializeAll(original);
    // The client sends no body: what beforeChange hooks add is written with the restore.
    const { input, data } = await prepareWrite({ ...args, trusted: true }, {}, { mode: 'update', operation: 'restore', originalDoc: previousDoc, id: args.id });
    assertValidInput(input.errors, 'The restore is not valid.');
    // With If-Match, only at the revision compared.
    const stored = await storeOne(args, (session) => storeUpdate(args, { input, operation: 'restore', filter, stored: tags && original, extra: { deletedAt: null }, session }));
    if (!stored) return conditionalMiss(tags ? collection.model.exists(filter) : Promise.resolve(false), new NotFoundError('No deleted record with this id.'));
    // Without a record read, what matters of the record before is still known: it was soft-deleted, so in
    // no reader's view (a read rule never shows a deleted record). Without it, a reader who cannot read the
    // restored record would be told it left its view: the id of a record it never could read.
    // eslint-disable-next-line @typescript-eslint/no-non-null-assertion -- an update's stored change always has the record as stored
    const after = stored.after!;
    const change = stored.before ? stored : { ...stored, before: original ?? { ...after, deletedAt: after.updatedAt ?? args.runtime.config.clock.now() } };
    return answerStored(args, change, data);
  });
}
