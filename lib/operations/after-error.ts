// An operation's unexpected failure given to the collection's afterError hooks, once per collection, and a
// failure after the write stood (afterChange, afterDelete, the answer's read steps): logged, the write kept.
// A write's refusal (401, 403, 409, 412, 428) is told to the audit log here too (refused-write.ts).
import type { HookOperation } from '../config/hooks';
import { ContentError, isErrorAnswer } from '../errors';
import { toLoggableError } from '../util/loggable-error';
import { hookBase, hookLabel, namedHookError } from './hooks';
import { hearsRefusals, noteRefusedWrite, writeAction } from './refused-write';
import type { OperationArgs } from './runtime';

/** The collections whose afterError hooks were told of an error already. */
const reported = new WeakMap<object, Set<string>>();

/**
 * Gives an operation's unexpected failure (not a ContentError with an error status) to the collection's
 * afterError hooks. A hook
 * that fails there is logged and the others still run: the original error is what the caller gets.
 */
export async function reportError(args: OperationArgs, operation: HookOperation, error: unknown): Promise<void> {
  const { collection } = args;
  const hooks = collection.descriptor.hooks.afterError;
  if (hooks.length === 0 || isErrorAnswer(error)) return;
  // A failure inside a nested call (a hook's `api`) passes through the outer operation too: each
  // collection's afterError hears of it once.
  if (typeof error === 'object' && error !== null) {
    const told = reported.get(error) ?? new Set<string>();
    if (told.has(collection.descriptor.slug)) return;
    reported.set(error, told.add(collection.descriptor.slug));
  }
  const base = hookBase(args, operation);
  for (let index = 0; index < hooks.length; index++) {
    try {
      await hooks[index]({ ...base, error });
    } catch (failure) {
      args.runtime.config.logger.error(`content-router: the ${hookLabel(collection, 'hooks.afterError', index, hooks[index])} hook failed:`, toLoggableError(failure));
    }
  }
}

/**
 * Runs `work` as one operation of the collection: an unexpected failure (see reportError) also goes to the
 * afterError hooks before it is rethrown (and answered, and logged, where it is caught), and a write's
 * refusal to the audit log (naming the record when the write's args name one by `id`).
 */
export async function withAfterError<T>(args: OperationArgs, operation: HookOperation, work: () => Promise<T>): Promise<T> {
  const audited = operation !== 'read' && hearsRefusals(args.runtime);
  if (!audited && args.collection.descriptor.hooks.afterError.length === 0) return work();
  try {
    return await work();
  } catch (error) {
    if (audited) noteRefusedWrite({ ...args, action: writeAction(args, operation), id: 'id' in args ? args.id : undefined }, error);
    await reportError(args, operation, error);
    throw error;
  }
}

/**
 * A hook that failed after the write stood (afterChange, afterDelete): the write is not undone and the
 * caller still succeeds, so the failure is logged and given to afterError here.
 */
export async function reportAfterWrite(args: OperationArgs, operation: HookOperation, error: unknown): Promise<void> {
  // A ContentError cannot refuse a write that stands: here it is a failure of the hook that threw it, named.
  const failure = error instanceof ContentError ? namedHookError(error, 'after-write') : error;
  args.runtime.config.logger.error('content-router: a hook failed after the write was stored (the write stands):', toLoggableError(failure));
  await reportError(args, operation, failure);
}
