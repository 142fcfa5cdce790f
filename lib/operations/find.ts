// The list operation: access -> merge the access constraint -> database (page or keyset cursor)
// -> populate -> serialize. Shared by the REST list route, the local API and custom endpoints.
import { cursorFilter, encodeCursor, reverseSort, toMongoSort } from '../query';
import type { ListQuery } from '../query/types';
import type { ApiRecord, RawDoc } from '../schema/to-record';
import { checkAccess } from './access';
import { buildFilter, deletedScope } from './build-filter';
import { populateRows } from './populate';
import type { OperationArgs } from './operation-args';

export interface FindArgs extends OperationArgs {
  query: ListQuery;
}

export interface FindResult {
  docs: ApiRecord[];
  page: number;
  limit: number;
  /** Absent when the query asked for count=false or used a cursor. */
  total?: number;
  totalPages?: number;
  hasNextPage: boolean;
  hasPrevPage: boolean;
  /** Cursor mode only. */
  nextCursor?: string | null;
  prevCursor?: string | null;
}

/** Lists records of a collection. */
export async function find(args: FindArgs): Promise<FindResult> {
  const { collection, query } = args;
  const constraint = await checkAccess({ ...args, op: 'read' });
  const scope = await deletedScope(args, query.includeDeleted);
  const filter = await buildFilter({ ...args, nodes: [query.where, constraint, scope.node], deleted: scope.deleted });
  const select = query.select ? new Set(query.select) : undefined;

  const finish = async (rows: RawDoc[]): Promise<ApiRecord[]> => {
    await populateRows({ ...args, rows, tree: query.populate });
    return rows.map((row) => collection.serialize(row, select));
  };

  if (query.cursor !== undefined) {
    const position = query.cursor;
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
    const first = rows[0];
    const last = rows[rows.length - 1];
    // Encoded before population replaces relation ids in the rows (a sort on a relation reads the id).
    const nextCursor = hasNextPage && last ? encodeCursor(last, query.sort, 'next', collection.descriptor.slug) : null;
    const prevCursor = hasPrevPage && first ? encodeCursor(first, query.sort, 'prev', collection.descriptor.slug) : null;
    return {
      docs: await finish(rows),
      page: 1,
      limit: query.limit,
      hasNextPage: hasNextPage && last !== undefined,
      hasPrevPage: hasPrevPage && first !== undefined,
      nextCursor,
      prevCursor,
    };
  }

  const skip = (query.page - 1) * query.limit;
  const rowsQuery = collection.model
    .find(filter, collection.projection)
    .sort(toMongoSort(query.sort))
    .skip(skip)
    .limit(query.count ? query.limit : query.limit + 1)
    .lean<RawDoc[]>();
  const [rows, total] = await Promise.all([
    rowsQuery,
    query.count ? collection.model.countDocuments(filter) : Promise.resolve(undefined),
  ]);
  let hasNextPage: boolean;
  if (total === undefined) {
    hasNextPage = rows.length > query.limit;
    if (hasNextPage) rows.pop();
  } else {
    hasNextPage = skip + rows.length < total;
  }
  const result: FindResult = { docs: await finish(rows), page: query.page, limit: query.limit, hasNextPage, hasPrevPage: query.page > 1 };
  if (total !== undefined) {
    result.total = total;
    result.totalPages = Math.ceil(total / query.limit);
  }
  return result;
}
