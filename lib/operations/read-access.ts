// The step every collection read shares before the database: evaluate the read rule and the soft-delete
// scope, then hand the resolved read to the read-through hooks (a cache may answer it instead of `load`).
import type { ListQuery, RecordQuery, WhereNode } from '../query/types';
import { type MaybePromise, isPromiseLike } from '../util/maybe-promise';
import { accessNow } from './access';
import { deletedScope } from './build-filter';
import type { ReadObserver, ResolvedRead, OperationArgs } from './runtime';

/**
 * Resolves the caller's access for a read (throws 401/403 when denied). `pathId` is the record id as the
 * caller gave it: rules receive it (`args.id`) on get-one reads, as on writes.
 */
export function resolveRead(args: OperationArgs, read: ReadRequest, pathId?: string): MaybePromise<ResolvedRead> {
  return resolveReadWith(accessNow({ ...args, op: 'read', id: pathId }), args, read, pathId);
}

/** What a read asks for, before access is resolved. */
export interface ReadRequest {
  kind: 'list' | 'record';
  query: ListQuery | RecordQuery;
  id?: string;
  cacheable?: ReadObserver;
}

/** resolveRead with the read rule's answer already in hand (`accessNow` for `read`, with `pathId` as its id). */
export function resolveReadWith(constraint: MaybePromise<WhereNode | undefined>, args: OperationArgs, read: ReadRequest, pathId?: string): MaybePromise<ResolvedRead> {
  const includeDeleted = read.query.includeDeleted === true;
  // The common read (a rule answering at once, no deleted records asked for) resolves without waiting.
  if (!includeDeleted && !isPromiseLike(constraint)) {
    return { ...read, args, constraint, deleted: LIVE_ONLY };
  }
  const withId = pathId === undefined ? args : { ...args, id: pathId };
  return (async () => ({ ...read, args, constraint: await constraint, deleted: await deletedScope(withId, includeDeleted) }))();
}

/** The soft-delete scope of a read that did not ask for deleted records. */
const LIVE_ONLY = Object.freeze({ deleted: false });

/** Runs `load` through a list of wrapping hooks, the first listed outermost. */
export function runThrough<R, T>(hooks: ReadonlyArray<(request: R, next: () => Promise<T>) => Promise<T>>, request: R, load: () => Promise<T>): Promise<T> {
  let next = load;
  for (let i = hooks.length - 1; i >= 0; i -= 1) {
    const hook = hooks[i];
    const inner = next;
    next = () => hook(request, inner);
  }
  return next();
}

/** Runs `load` through the runtime's read-through hooks (the first listed outermost). */
export function readThrough<T>(read: ResolvedRead, load: () => Promise<T>): Promise<T> {
  return runThrough<ResolvedRead, T>(read.args.runtime.hooks.readThrough, read, load);
}
