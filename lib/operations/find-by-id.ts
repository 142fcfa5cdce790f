// The get-one operation: a missing record, a malformed id and a record outside the caller's read
// constraint all answer 404, so ids cannot be probed.
import { NotFoundError } from '../errors';
import type { RecordQuery } from '../query/types';
import type { ApiRecord, RawDoc } from '../schema/to-record';
import { checkAccess } from './access';
import { buildFilter, deletedScope, idCondition } from './build-filter';
import { populateRows } from './populate';
import { toRecordId } from './record-id';
import type { OperationArgs } from './operation-args';

export interface FindByIdArgs extends OperationArgs, Partial<RecordQuery> {
  id: string;
}

/** Reads one record or throws NotFoundError. */
export async function findById(args: FindByIdArgs): Promise<ApiRecord> {
  const { collection } = args;
  const _id = toRecordId(args.id);
  const constraint = await checkAccess({ ...args, op: 'read' });
  const scope = await deletedScope(args, args.includeDeleted === true);
  const filter = await buildFilter({ ...args, nodes: [idCondition(collection, [_id]), constraint, scope.node], deleted: scope.deleted });
  const row = await collection.model.findOne(filter, collection.projection).lean<RawDoc>();
  if (!row) throw new NotFoundError('No record with this id.');
  if (args.populate) await populateRows({ ...args, rows: [row], tree: args.populate });
  return collection.serialize(row, args.select ? new Set(args.select) : undefined);
}
