// A record's history, a page at a time, newest first: by page (with totals unless count=false) or by cursor.
import { cursorFilter, encodeCursor, reverseSort, toMongoSort } from '../../query';
import { VERSION_SORT, type VersionListQuery, versionListDescriptor } from '../../query/parse-version-query';
import type { StoredVersion } from '../../schema/version-schema';
import type { FindResult } from '../find-result';
import { type HistoryArgs, type VersionSummary, openHistory, readableFields, summarize } from './read-history';

export interface ListVersionsArgs extends HistoryArgs {
  query: VersionListQuery;
}

/** A page of versions: a list result whose items are versions (no record ids). */
export type VersionPage = Omit<FindResult, 'docs'> & { docs: VersionSummary[] };

/** The page of the record's versions `query` names; needs `readVersions`. */
export async function listVersions(args: ListVersionsArgs): Promise<VersionPage> {
  const { query } = args;
  const history = await openHistory(args);
  const readable = await readableFields(args);
  const mine = { record: history.record };
  if (query.envelope !== 'cursor') {
    const [rows, total] = await Promise.all([
      history.model.find(mine).sort({ version: -1 }).skip((query.page - 1) * query.limit).limit(query.limit + 1).lean<StoredVersion[]>(),
      query.count ? history.model.countDocuments(mine) : undefined,
    ]);
    const more = rows.length > query.limit;
    if (more) rows.pop();
    return {
      docs: rows.map((row) => summarize(row, readable)),
      page: query.page,
      limit: query.limit,
      ...(total !== undefined && { total, totalPages: Math.ceil(total / query.limit) }),
      hasNextPage: more,
      hasPrevPage: query.page > 1,
    };
  }
  const position = query.cursor ?? null;
  const backwards = position?.direction === 'prev';
  const filter = position ? { $and: [mine, cursorFilter(VERSION_SORT, position)] } : mine;
  const rows = await history.model.find(filter).sort(toMongoSort(backwards ? reverseSort(VERSION_SORT) : VERSION_SORT)).limit(query.limit + 1).lean<StoredVersion[]>();
  const more = rows.length > query.limit;
  if (more) rows.pop();
  if (backwards) rows.reverse();
  const hasNextPage = (backwards || more) && rows.length > 0;
  const hasPrevPage = (backwards ? more : position !== null) && rows.length > 0;
  const signedAs = versionListDescriptor(args.collection.descriptor).slug;
  const first = rows.at(0);
  const last = rows.at(-1);
  return {
    docs: rows.map((row) => summarize(row, readable)),
    page: 1,
    limit: query.limit,
    hasNextPage,
    hasPrevPage,
    nextCursor: hasNextPage && last ? encodeCursor(last as unknown as Record<string, unknown>, VERSION_SORT, 'next', signedAs) : null,
    prevCursor: hasPrevPage && first ? encodeCursor(first as unknown as Record<string, unknown>, VERSION_SORT, 'prev', signedAs) : null,
  };
}
