// The last step of every read: populate the requested relations, then serialize rows into API records
// (hidden fields gone, only the selected fields kept).
import type { PopulateTree } from '../query/types';
import type { ApiRecord, RawDoc } from '../schema/to-record';
import type { OperationArgs } from './runtime';
import { populateRows } from './populate';

/** Populates `tree` on the rows in place and returns them serialized. */
export async function finishRows(args: OperationArgs, rows: RawDoc[], tree: PopulateTree, select: readonly string[] | undefined): Promise<ApiRecord[]> {
  if (rows.length > 0 && !isEmptyTree(tree)) await populateRows({ ...args, rows, tree });
  return serializeRows(args, rows, select);
}

/** True when a populate tree asks for nothing. */
function isEmptyTree(tree: PopulateTree): boolean {
  for (const _ in tree) return false;
  return true;
}

function serializeRows(args: OperationArgs, rows: RawDoc[], select: readonly string[] | undefined): ApiRecord[] {
  const fields = select ? new Set(select) : undefined;
  const { serialize } = args.collection;
  const records = new Array<ApiRecord>(rows.length);
  for (let i = 0; i < rows.length; i++) records[i] = serialize(rows[i], fields);
  return records;
}
