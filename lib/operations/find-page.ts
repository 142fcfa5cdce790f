// The page read of a list: skip/limit on the filter the list operation resolved (access included),
// with a total unless count=false (counted by the caller's `count`, see count-total.ts).
import { toMongoSort } from '../query';
import type { ListQuery } from '../query/types';
import type { RawDoc } from '../schema/to-record';
import type { FindResult } from './find-result';
import { finishRows } from './finish-rows';
import type { OperationArgs } from './runtime';

/**
 * Reads page `query.page` of the records matching `filter` (access and soft delete already in it);
 * `count` answers the total of `filter`, called only when the query wants one.
 */
export async function findPage(
  args: OperationArgs,
  query: ListQuery,
  filter: Record<string, unknown>,
  count: () => Promise<number>,
): Promise<FindResult> {
  const { collection } = args;
  const skip = (query.page - 1) * query.limit;
  const rowsQuery = collection.model
    .find(filter, collection.projection)
    .sort(toMongoSort(query.sort))
    .skip(skip)
    .limit(query.count ? query.limit : query.limit + 1)
    .lean<RawDoc[]>();
  const [rows, total] = await Promise.all([
    rowsQuery,
    query.count ? count() : Promise.resolve(undefined),
  ]);
  let hasNextPage: boolean;
  if (total === undefined) {
    hasNextPage = rows.length > query.limit;
    if (hasNextPage) rows.pop();
  } else {
    hasNextPage = skip + rows.length < total;
  }
  const docs = await finishRows(args, rows, query.populate, query.select);
  const result: FindResult = { docs, page: query.page, limit: query.limit, hasNextPage, hasPrevPage: query.page > 1 };
  if (total !== undefined) {
    result.total = total;
    result.totalPages = Math.ceil(total / query.limit);
  }
  return result;
}
