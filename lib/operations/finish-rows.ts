// The last step of every read: populate the requested relations, then serialize rows into API records
// (hidden fields gone, only the selected fields kept).
import type { PopulateTree } from '../query/types';
import type { ApiRecord, RawDoc } from '../schema/to-record';
import type { OperationArgs } from './operation-args';
import { populateRows } from './populate';

/** Populates `tree` on the rows in place and returns them serialized. */
export async function finishRows(args: OperationArgs, rows: RawDoc[], tree: PopulateTree, select: readonly string[] | undefined): Promise<ApiRecord[]> {
  await populateRows({ ...args, rows, tree });
  const fields = select ? new Set(select) : undefined;
  return rows.map((row) => args.collection.serialize(row, fields));
}
