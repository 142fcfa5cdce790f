// What hooks (and the rules asked on a request) share for one request: its context object, and answers
// made once per request and caller. Both live on the request's state (request-state.ts).
import type { HookContext } from '../config/hooks';
import { type CallerMemo, stateOf } from './request-state';
import type { OperationArgs } from './runtime';

/** The context the operation's hooks share: its request state's (a local call's own, or its request's). */
export function contextOf(args: Pick<OperationArgs, 'state' | 'req'>): HookContext {
  return stateOf(args).context;
}

/**
 * `make()`'s value, made once per request state (a local API call counts as one: it has a state of its own)
 * and caller: a nested call as another user makes its own.
 */
export function rememberForCaller<T>(memo: CallerMemo<T>, args: Pick<OperationArgs, 'state' | 'req' | 'user'>, make: () => T): T {
  const { decided } = stateOf(args);
  const known = decided.get(memo);
  if (known && known.user === args.user) return known.value as T;
  const value = make();
  decided.set(memo, { user: args.user, value });
  return value;
}
