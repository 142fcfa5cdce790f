// The last step of every read: populate the requested relations, then serialize rows into API records
// (hidden fields gone, only the selected fields kept).
import type { PopulateTree } from '../query/types';
import type { ApiRecord, RawDoc } from '../schema/to-record';
import type { MaybePromise } from '../util/maybe-promise';
import type { OperationArgs } from './runtime';
import { populateRows } from './populate';

/** True when a populate tree asks for nothing. */
export function isEmptyTree(tree: PopulateTree): boolean {
  for (const _ in tree) return false;
  return true;
}

/**
 * Populates `tree` on the rows in place and returns them serialized: at once when there is nothing to
 * populate (the common read), so it adds no promise of its own.
 */
export function finishRows(args: OperationArgs, rows: RawDoc[], tree: PopulateTree, select: readonly string[] | undefined): MaybePromise<ApiRecord[]> {
  if (rows.length === 0 || isEmptyTree(tree)) return serializeRows(args, rows, select);
  return populateRows({ ...args, rows, tree }).then(() => serializeRows(args, rows, select));
}

/** Rows serialized as they are (nothing to populate). */
export function serializeRows(args: OperationArgs, rows: RawDoc[], select: readonly string[] | undefined): ApiRecord[] {
  const fields = select ? new Set(select) : undefined;
  const { serialize } = args.collection;
  const records = new Array<ApiRecord>(rows.length);
  for (let i = 0; i < rows.length; i++) records[i] = serialize(rows[i], fields);
  return records;
}
