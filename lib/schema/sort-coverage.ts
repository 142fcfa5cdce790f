// Whether an index serves a sort: MongoDB then walks the index in sort order (forwards or backwards)
// instead of sorting in memory, and a keyset cursor's conditions become bounds on that walk. Pure, over
// key patterns, so start-up can tell which sorts have no index and the schema can skip redundant ones.
import type { IndexKeys } from '../config/index-keys';

/** One index as the schema declares it: key pattern and, for unique fields, unique + sparse. */
export interface IndexSpec {
  keys: IndexKeys;
  options?: { unique: true; sparse: true };
  /** The `_id` index every collection has: never declared, but it serves `id` sorts. */
  builtIn?: true;
}

/** A sort as key pattern order: stored path and direction, the `_id` tie-breaker included. */
export type SortKeys = ReadonlyArray<readonly [path: string, direction: 1 | -1]>;

/**
 * Whether `index` serves `sort` when every query pins the `equality` paths to one value (`deletedAt: null`
 * on soft-delete collections): after any leading keys on those paths, the index must start with the sort's
 * keys, all in the sort's directions or all reversed. A sparse index never serves a sort (it leaves records
 * out), and neither does an index whose walk is interleaved with keys the sort does not name.
 */
export function servesSort(index: IndexSpec, sort: SortKeys, equality: readonly string[] = []): boolean {
  if (index.options?.sparse || sort.length === 0) return false;
  const keys = Object.entries(index.keys);
  let start = 0;
  while (start < keys.length && equality.includes(keys[start][0])) start += 1;
  const walked = keys.slice(start, start + sort.length);
  if (walked.length < sort.length || walked.some(([path], i) => path !== sort[i][0])) return false;
  const forwards = walked.every(([, direction], i) => direction === sort[i][1]);
  const backwards = walked.every(([, direction], i) => direction === -sort[i][1]);
  return forwards || backwards;
}

/** Whether any of `indexes` serves `sort` (see servesSort). */
export function sortServed(indexes: readonly IndexSpec[], sort: SortKeys, equality: readonly string[] = []): boolean {
  return indexes.some((index) => servesSort(index, sort, equality));
}
