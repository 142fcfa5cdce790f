// The step every collection read shares before the database: evaluate the read rule and the soft-delete
// scope, then hand the resolved read to the read-through hooks (a cache may answer it instead of `load`).
import type { ListQuery, RecordQuery } from '../query/types';
import { type RuleAnswer, askRule, judgeAnswer } from './access';
import { deletedScope } from './build-filter';
import { callerView } from './field-view';
import type { ReadObserver, ResolvedRead, OperationArgs } from './runtime';

/** What a read asks for, before access is resolved. */
export interface ReadRequest {
  kind: 'list' | 'record';
  query: ListQuery | RecordQuery;
  id?: string;
  cacheable?: ReadObserver;
}

/**
 * Resolves the caller's access for a read (rejects with 401/403 when denied). `pathId` is the record id as
 * the caller gave it: rules receive it (`args.id`) on get-one reads, as on writes. `ruleAnswer`: the read
 * rule, already asked with that id.
 */
export async function resolveRead(args: OperationArgs, read: ReadRequest, pathId?: string, ruleAnswer?: RuleAnswer): Promise<ResolvedRead> {
  const withId = pathId === undefined ? args : { ...args, id: pathId };
  const constraint = await judgeAnswer(ruleAnswer ?? askRule({ ...withId, op: 'read' }));
  const deleted = await deletedScope(withId, read.query.includeDeleted);
  const view = args.runtime.fieldReadRules.length === 0 ? '' : (await callerView(args)).key;
  return { ...read, args, constraint, deleted, view };
}

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
