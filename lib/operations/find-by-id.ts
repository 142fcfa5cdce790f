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
import type { ReadObserver } from './runtime';

export interface FindByIdArgs extends OperationArgs, Partial<RecordQuery> {
  id: string;
  /** Accept a cached answer (shared: never mutate it) and learn how it was served. Without it, the database answers. */
  cacheable?: ReadObserver;
}

/** Reads one record or throws NotFoundError. */
export async function findById(args: FindByIdArgs): Promise<ApiRecord> {
  const { id, select, populate = {}, includeDeleted = false, cacheable, ...base } = args;
  const _id = toRecordId(id);
  const query: RecordQuery = { select, populate, includeDeleted };
  const read = await resolveRead(base, { kind: 'record', query, id: _id.toHexString(), cacheable }, id);
  return readThrough(read, async () => {
    const { collection } = base;
    const filter = await buildFilter({ ...base, nodes: [idCondition(collection, [_id]), read.constraint, read.deleted.node], deleted: read.deleted.deleted });
    const row = await collection.model.findOne(filter, collection.projection).lean<RawDoc>();
    if (!row) throw new NotFoundError('No record with this id.');
    const [record] = await finishRows(base, [row], populate, select);
    return record;
  });
}
