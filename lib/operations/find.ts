// The list operation: resolve access -> (cache hook) -> merge the access constraint into one filter ->
// page read with its total (count-total.ts) or keyset-cursor read -> populate -> serialize. Shared by the
// REST list route, the local API and custom endpoints.
import type { ListQuery } from '../query/types';
import { buildFilter } from './build-filter';
import { countTotal } from './count-total';
import { findCursor } from './find-cursor';
import { findPage } from './find-page';
import type { FindResult } from './find-result';
import type { OperationArgs } from './operation-args';
import { readThrough, resolveRead } from './read-access';
import type { ReadObserver, ResolvedRead } from './runtime';
import { isPromiseLike } from '../util/maybe-promise';

export interface FindArgs extends OperationArgs {
  query: ListQuery;
  /** Accept a cached answer (shared: never mutate it) and learn how it was served. Without it, the database answers. */
  cacheable?: ReadObserver;
}

/** Lists records of a collection. */
export async function find(args: FindArgs): Promise<FindResult> {
  const { query, cacheable } = args;
  // The common part alone: rules and hooks see only the operation's args, never the query.
  const base: OperationArgs = { runtime: args.runtime, collection: args.collection, user: args.user, req: args.req, overrideAccess: args.overrideAccess };
  const pending = resolveRead(base, { kind: 'list', query, cacheable });
  const read = isPromiseLike<ResolvedRead>(pending) ? await pending : pending;
  return readThrough(read, async () => {
    const nodes = [query.where, read.constraint, read.deleted.node];
    const built = buildFilter({ runtime: base.runtime, collection: base.collection, user: base.user, req: base.req, overrideAccess: base.overrideAccess, nodes, deleted: read.deleted.deleted });
    const filter = isPromiseLike<Record<string, unknown>>(built) ? await built : built;
    return query.cursor !== undefined ? findCursor(base, query, filter) : findPage(base, query, filter, () => countTotal(read, filter));
  });
}
