// The last step of every read: populate the requested relations, then present the rows to the caller
// (read hooks, field access, hidden fields gone, only the selected fields kept: present-records.ts).
import type { PopulateTree } from '../query/types';
import type { ApiRecord, RawDoc } from '../schema/to-record';
import type { OperationArgs } from './runtime';
import { populateRows } from './populate';
import { presentFor } from './present-records';

/** Populates `tree` on the rows in place and returns them as the caller receives them. */
export async function finishRows(args: OperationArgs, rows: RawDoc[], tree: PopulateTree, select: readonly string[] | undefined): Promise<ApiRecord[]> {
  if (rows.length > 0 && !isEmptyTree(tree)) await populateRows({ ...args, rows, tree });
  return presentFor(args, rows, select);
}

/** True when a populate tree asks for nothing. */
function isEmptyTree(tree: PopulateTree): boolean {
  for (const _ in tree) return false;
  return true;
}
