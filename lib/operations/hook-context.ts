// What hooks (and the rules asked on a request) share for one request: its context object, and answers
// made once per request and caller on it.
import type { Request } from 'express';
import type { HookContext } from '../config/hooks';
import type { OperationArgs } from './runtime';

/** Contexts of requests, so every operation of one request (nested calls too) shares one object. */
const requestContexts = new WeakMap<Request, HookContext>();

/** The context the operation's hooks share: the caller's own, the request's, or a new one. */
export function contextOf(args: Pick<OperationArgs, 'context' | 'req'>): HookContext {
  if (args.context) return args.context;
  if (!args.req) return {};
  let context = requestContexts.get(args.req);
  if (!context) requestContexts.set(args.req, (context = {}));
  return context;
}

/** What one request decided for one caller, remembered on the request's context (field views, field write answers). */
export type CallerMemo<T> = WeakMap<HookContext, { user: OperationArgs['user']; value: T }>;

/**
 * `make()`'s value, made once per request (a local API call counts as one: it has a context of its own) and
 * caller: a nested call as another user makes its own.
 */
export function rememberForCaller<T>(memo: CallerMemo<T>, args: Pick<OperationArgs, 'context' | 'req' | 'user'>, make: () => T): T {
  const context = contextOf(args);
  const known = memo.get(context);
  if (known && known.user === args.user) return known.value;
  const value = make();
  memo.set(context, { user: args.user, value });
  return value;
}
