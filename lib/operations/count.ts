// The count operation: how many records a list with the same conditions holds for this caller, without
// reading a page. Resolve access (read rule, soft-delete scope) -> the list's filter -> its total
// (count-total.ts: the estimate for an empty filter, else countDocuments through the count hooks). Shared
// by GET /<slug>/count, the local API and hooks' `api`. No record is read, so no read hook runs.
import type { ListQuery } from '../query/types';
import { readFilter } from './build-filter';
import { countTotal } from './count-total';
import { withAfterError } from './after-error';
import { resolveRead } from './read-access';
import { type OperationArgs, type ReadObserver, operationArgs } from './runtime';

export interface CountArgs extends OperationArgs {
  /** The list query to count (parseCountQuery): its conditions and includeDeleted; the page is not read. */
  query: ListQuery;
  /** Accept a total the totals cache holds (REST reads); without it, the database counts. */
  cached?: boolean;
}

/** A count has no representation of its own to observe: opting in is all the totals cache asks. */
const TAKES_CACHED: ReadObserver = () => undefined;

/** Counts the records of a collection the caller may read that match the query. */
export function count(args: CountArgs): Promise<{ total: number }> {
  const base = operationArgs(args);
  return withAfterError(base, 'read', async () => {
    const read = await resolveRead(base, { kind: 'list', query: args.query, cacheable: args.cached ? TAKES_CACHED : undefined });
    return { total: await countTotal(read, await readFilter(read, args.query.where)) };
  });
}
