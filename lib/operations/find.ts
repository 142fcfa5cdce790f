// The list operation: resolve access -> (cache hook) -> merge the access constraint into one filter ->
// page read with its total (count-total.ts) or keyset-cursor read -> populate -> present (read hooks, field access). Shared by the
// REST list route, the local API and custom endpoints.
import type { ListQuery } from '../query/types';
import { readFilter } from './build-filter';
import { countTotal } from './count-total';
import { findCursor } from './find-cursor';
import { findPage } from './find-page';
import type { FindResult } from './find-result';
import { withAfterError } from './after-error';
import { readThrough, resolveRead } from './read-access';
import { type ReadObserver, type OperationArgs, operationArgs } from './runtime';

export interface FindArgs extends OperationArgs {
  query: ListQuery;
  /** Accept a cached answer (shared: never mutate it) and learn how it was served. Without it, the database answers. */
  cacheable?: ReadObserver;
}

/** Lists records of a collection. */
export function find(args: FindArgs): Promise<FindResult> {
  const base = operationArgs(args);
  return withAfterError(base, 'read', () => list(base, args));
}

async function list(base: OperationArgs, { query, cacheable }: FindArgs): Promise<FindResult> {
  const read = await resolveRead(base, { kind: 'list', query, cacheable });
  return readThrough(read, async () => {
    const filter = await readFilter(read, query.where);
    return query.cursor !== undefined ? findCursor(base, query, filter) : findPage(base, query, filter, () => countTotal(read, filter));
  });
}
