// The get-one operation: a missing record, a malformed id and a record outside the caller's read
// constraint all answer 404, so ids cannot be probed.
import { NotFoundError } from '../errors';
import type { RecordQuery } from '../query/types';
import type { ApiRecord, RawDoc } from '../schema/to-record';
import { buildFilter, idCondition } from './build-filter';
import { finishRows } from './finish-rows';
import type { OperationArgs } from './operation-args';
import { readThrough, resolveRead } from './read-access';
import { toRecordId } from './record-id';
import type { ReadObserver, ResolvedRead } from './runtime';
import { isPromiseLike } from '../util/maybe-promise';

export interface FindByIdArgs extends OperationArgs, Partial<RecordQuery> {
  id: string;
  /** Accept a cached answer (shared: never mutate it) and learn how it was served. Without it, the database answers. */
  cacheable?: ReadObserver;
}

/** Reads one record or throws NotFoundError. */
export async function findById(args: FindByIdArgs): Promise<ApiRecord> {
  const { id, select, populate = {}, includeDeleted = false, cacheable } = args;
  const _id = toRecordId(id);
  // The common part alone: rules and hooks see only the operation's args, never this read's options.
  const base: OperationArgs = { runtime: args.runtime, collection: args.collection, user: args.user, req: args.req, overrideAccess: args.overrideAccess };
  const query: RecordQuery = { select, populate, includeDeleted };
  // The id is 24 hex digits (toRecordId checked): its lower case is the ObjectId's hex.
  const pending = resolveRead(base, { kind: 'record', query, id: id.toLowerCase(), cacheable }, id);
  const read = isPromiseLike<ResolvedRead>(pending) ? await pending : pending;
  return readThrough(read, async () => {
    const { collection } = base;
    const nodes = [idCondition(collection, [_id]), read.constraint, read.deleted.node];
    const built = buildFilter({ runtime: base.runtime, collection, user: base.user, req: base.req, overrideAccess: base.overrideAccess, nodes, deleted: read.deleted.deleted });
    const filter = isPromiseLike<Record<string, unknown>>(built) ? await built : built;
    const row = await collection.model.findOne(filter, collection.projection).lean<RawDoc>();
    if (!row) throw new NotFoundError('No record with this id.');
    const finished = finishRows(base, [row], populate, select);
    return (isPromiseLike<ApiRecord[]>(finished) ? await finished : finished)[0];
  });
}
