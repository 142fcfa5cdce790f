// The get-one operation: a missing record, a malformed id and a record outside the caller's read
// constraint all answer 404, so ids cannot be probed.
//
// Steps: check the id -> ask the read rule -> resolve access and the soft-delete scope -> (cache hook) ->
// one filter -> read the row -> populate -> present (read hooks, field access). A read the rule allows
// outright, with no read-through or read hook, no field read rule, nothing to populate and no deleted
// records asked for, goes from the rule straight to the row: the common public get, kept short because
// each step it skips is a measured share of its cost.
import { NotFoundError } from '../errors';
import type { RecordQuery } from '../query/types';
import type { ApiRecord, RawDoc } from '../schema/to-record';
import { type RuleAnswer, askRule } from './access';
import { buildFilter, idCondition, liveRecordFilter } from './build-filter';
import { finishRows } from './finish-rows';
import { withAfterError } from './after-error';
import { readThrough, resolveRead } from './read-access';
import { checkRecordId, toRecordId } from './record-id';
import { type CollectionRuntime, type ReadObserver, type OperationArgs, operationArgs } from './runtime';

export interface FindByIdArgs extends OperationArgs, Partial<RecordQuery> {
  id: string;
  /** Accept a cached answer (shared: never mutate it) and learn how it was served. Without it, the database answers. */
  cacheable?: ReadObserver;
}

/** Reads one record, or rejects with NotFoundError. */
export function findById(args: FindByIdArgs): Promise<ApiRecord> {
  try {
    checkRecordId(args.id);
    const base = operationArgs(args);
    const answer = askRule({ ...base, op: 'read', id: args.id });
    const open = answer.result === true && !args.includeDeleted && !hasPopulate(args) && base.runtime.hooks.readThrough.length === 0 && !base.collection.readShaped;
    if (open) return readOpenRecord(base, args);
    return withAfterError(base, 'read', () => readRecord(base, args, answer));
  } catch (error) {
    return Promise.reject(error);
  }
}

function readOpenRecord(base: OperationArgs, { id, select }: FindByIdArgs): Promise<ApiRecord> {
  const { collection } = base;
  return loadRow(collection, liveRecordFilter(collection, id)).then((row) => collection.serialize(row, select && new Set(select)));
}

async function readRecord(base: OperationArgs, args: FindByIdArgs, answer: RuleAnswer): Promise<ApiRecord> {
  const { id, select, populate = {}, includeDeleted = false, cacheable } = args;
  const { collection } = base;
  const query: RecordQuery = { select, populate, includeDeleted };
  // The id is 24 hex digits (checked): its lower case is the ObjectId's hex.
  const read = await resolveRead(base, { kind: 'record', query, id: id.toLowerCase(), cacheable }, id, answer);
  return readThrough(read, async () => {
    const nodes = [idCondition(collection, [toRecordId(id)]), read.constraint, read.deleted.node];
    const row = await loadRow(collection, await buildFilter({ ...base, nodes, deleted: read.deleted.deleted }));
    const [record] = await finishRows(base, [row], populate, select);
    return record;
  });
}

function hasPopulate({ populate }: FindByIdArgs): boolean {
  return populate !== undefined && Object.keys(populate).length > 0;
}

function loadRow(collection: CollectionRuntime, filter: Record<string, unknown>): Promise<RawDoc> {
  return collection.model.findOne(filter, collection.projection).lean<RawDoc>().then((row) => {
    if (!row) throw new NotFoundError('No record with this id.');
    return row;
  });
}
