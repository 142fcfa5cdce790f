// Delete and restore. On soft-delete collections DELETE stamps deletedAt (permanent=true removes);
// restore clears it. The access constraint and the id go into one atomic write.
import { NotFoundError } from '../errors';
import type { ApiRecord, RawDoc } from '../schema/to-record';
import { checkAccess } from './access';
import { buildFilter, idCondition } from './build-filter';
import { toRecordId } from './record-id';
import { publishWrite, type OperationArgs } from './runtime';

export interface DeleteArgs extends OperationArgs {
  id: string;
  /** Soft-delete collections: remove the record for good instead of stamping deletedAt. */
  permanent?: boolean;
}

async function idFilter(args: DeleteArgs, op: 'delete' | 'update', deleted: boolean | 'only'): Promise<Record<string, unknown>> {
  const _id = toRecordId(args.id);
  const constraint = await checkAccess({ ...args, op });
  return buildFilter({ ...args, nodes: [idCondition(args.collection, [_id]), constraint], deleted });
}

/** Deletes (or soft-deletes) one record; throws NotFoundError when there is none the caller may delete. */
export async function deleteRecord(args: DeleteArgs): Promise<{ deleted: true }> {
  const { collection, runtime } = args;
  const soft = collection.descriptor.softDelete && !args.permanent;
  const filter = await idFilter(args, 'delete', soft ? false : true);
  // One instant for both stamps, published with the event: the change stream's echo of this soft delete
  // carries them, and that is how it is told from another writer's delete (see echo-filter.ts).
  const now = new Date();
  // Both return the row as it was before, so a delete event reaches only readers who could read it then.
  const before = soft
    ? await collection.model
        .findOneAndUpdate(filter, { $set: { deletedAt: now, updatedAt: now } }, { returnDocument: 'before', timestamps: false })
        .lean<RawDoc>()
    : await collection.model.findOneAndDelete(filter).lean<RawDoc>();
  if (!before) throw new NotFoundError('No record with this id.');
  // The stored id (lower-case hex), not the path's, which may spell it in upper case: events name records as they are.
  publishWrite(runtime, collection, 'delete', [String(before._id)], undefined, [before], soft ? { updatedAt: now, deletedAt: now } : undefined);
  return { deleted: true };
}

/** Restores a soft-deleted record (update access); throws NotFoundError unless it is deleted and updatable. */
export async function restoreRecord(args: Omit<DeleteArgs, 'permanent'>): Promise<ApiRecord> {
  const { collection, runtime } = args;
  if (!collection.descriptor.softDelete) throw new NotFoundError('This collection has no soft delete.');
  const filter = await idFilter(args, 'update', 'only');
  const row = await collection.model
    // The whole row (see update.ts): serialize() drops the hidden fields from the answer.
    .findOneAndUpdate(filter, { $set: { deletedAt: null } }, { returnDocument: 'after' })
    .lean<RawDoc>();
  if (!row) throw new NotFoundError('No deleted record with this id.');
  const record = collection.serialize(row);
  publishWrite(runtime, collection, 'update', [record.id], ['deletedAt'], [row]);
  return record;
}
