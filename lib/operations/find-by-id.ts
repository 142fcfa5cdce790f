// The get-one operation: a missing record, a malformed id and a record outside the caller's read
// constraint all answer 404, so ids cannot be probed.
import type { Types } from 'mongoose';
import { NotFoundError } from '../errors';
import type { PopulateTree, RecordQuery } from '../query/types';
import type { ApiRecord, RawDoc } from '../schema/to-record';
import { buildFilter, idCondition, liveRecordFilter } from './build-filter';
import { finishRows, isEmptyTree, serializeRows } from './finish-rows';
import { accessNow } from './access';
import { readThrough, resolveReadWith } from './read-access';
import { checkRecordId, toRecordId } from './record-id';
import { type CollectionRuntime, type ReadObserver, type ResolvedRead, type OperationArgs, operationArgs } from './runtime';
import type { MaybePromise } from '../util/maybe-promise';

export interface FindByIdArgs extends OperationArgs, Partial<RecordQuery> {
  id: string;
  /** Accept a cached answer (shared: never mutate it) and learn how it was served. Without it, the database answers. */
  cacheable?: ReadObserver;
}

/** Reads one record, or rejects with NotFoundError. */
export function findById(args: FindByIdArgs): Promise<ApiRecord> {
  try {
    const { id, select, populate = {}, includeDeleted = false, cacheable } = args;
    checkRecordId(id);
    const base = operationArgs(args);
    const constraint = accessNow({ ...base, op: 'read', id });
    // The common read (the rule allows it outright, no read hook to consult, no deleted records asked
    // for, nothing to populate) goes straight to the database: each step it skips costs the lean path.
    if (constraint === undefined && !includeDeleted && base.runtime.hooks.readThrough.length === 0 && isEmptyTree(populate)) {
      return loadRow(base.collection, liveRecordFilter(base.collection, id)).then((row) => serializeRows(base, [row], select)[0]);
    }
    const query: RecordQuery = { select, populate, includeDeleted };
    // The id is 24 hex digits (checked): its lower case is the ObjectId's hex.
    const read = resolveReadWith(constraint, base, { kind: 'record', query, id: id.toLowerCase(), cacheable }, id);
    return readRecord(base, toRecordId(id), read, populate, select);
  } catch (error) {
    return Promise.reject(error);
  }
}

/** Any other read: through the read hooks (a cache), with every condition combined, then populated. */
async function readRecord(base: OperationArgs, _id: Types.ObjectId, pending: MaybePromise<ResolvedRead>, populate: PopulateTree, select: string[] | undefined): Promise<ApiRecord> {
  const read = await pending;
  const { collection } = base;
  return readThrough(read, async () => {
    const nodes = [idCondition(collection, [_id]), read.constraint, read.deleted.node];
    const row = await loadRow(collection, await buildFilter({ ...base, nodes, deleted: read.deleted.deleted }));
    return (await finishRows(base, [row], populate, select))[0];
  });
}

function loadRow(collection: CollectionRuntime, filter: Record<string, unknown>): Promise<RawDoc> {
  return collection.model.findOne(filter, collection.projection).lean<RawDoc>().then((row) => {
    if (!row) throw new NotFoundError('No record with this id.');
    return row;
  });
}
