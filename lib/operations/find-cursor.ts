// The keyset (cursor) read of a list: the rows after (or before) the cursor's position in sort order,
// one extra row fetched to know whether another page follows.
import { cursorFilter, encodeCursor, reverseSort, toMongoSort } from '../query';
import type { ListQuery } from '../query/types';
import type { RawDoc } from '../schema/to-record';
import type { FindResult } from './find-result';
import { finishRows } from './finish-rows';
import type { OperationArgs } from './runtime';

/** Reads the page at `query.cursor` of the records matching `filter` (access and soft delete already in it). */
export async function findCursor(args: OperationArgs, query: ListQuery, filter: Record<string, unknown>): Promise<FindResult> {
  const { collection } = args;
  const position = query.cursor ?? null;
  const backwards = position?.direction === 'prev';
  const sort = backwards ? reverseSort(query.sort) : query.sort;
  const cursorCondition = position ? cursorFilter(query.sort, position) : undefined;
  const pageFilter = cursorCondition ? { $and: [filter, cursorCondition] } : filter;
  const rows = await collection.model
    .find(pageFilter, collection.projection)
    .sort(toMongoSort(sort))
    .limit(query.limit + 1)
    .lean<RawDoc[]>();
  const more = rows.length > query.limit;
  if (more) rows.pop();
  if (backwards) rows.reverse();
  const hasNextPage = backwards ? true : more;
  const hasPrevPage = backwards ? more : position !== null;
  const first = rows.at(0);
  const last = rows.at(-1);
  // Encoded before population replaces relation ids in the rows (a sort on a relation reads the id).
  const nextCursor = hasNextPage && last ? encodeCursor(last, query.sort, 'next', collection.descriptor.slug) : null;
  const prevCursor = hasPrevPage && first ? encodeCursor(first, query.sort, 'prev', collection.descriptor.slug) : null;
  return {
    docs: await finishRows(args, rows, query.populate, query.select),
    page: 1,
    limit: query.limit,
    hasNextPage: hasNextPage && last !== undefined,
    hasPrevPage: hasPrevPage && first !== undefined,
    nextCursor,
    prevCursor,
  };
}
