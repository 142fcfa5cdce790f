// The one typed state of a request: everything the router keeps for a request while it serves it (the hook
// context, what was decided for its caller, whether it wrote, whether it was answered in its route's place,
// and the slots the HTTP layer and the features declare for themselves) lives in one object, made once per
// request by the dispatcher, or once per local API call that names no request. Declared here, below the
// HTTP layer, because the operations read its core slots; a layer or feature above adds its own slot by
// merging into RequestState (`declare module`), beside the code that uses it, as RouterMembers are declared.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Request } from 'express';
import type { HookContext } from '../config/hooks';
import type { AuthUser } from '../config/types';

/** A per-caller decision kept in a request's state (rememberForCaller): names the memo, types its value. */
export interface CallerMemo<T> {
  readonly name: string;
  /** Never set: carries the memo's value type. */
  readonly value?: T;
}

/** A named memo of per-caller decisions (a field view, field write answers), kept per request state. */
export function callerMemo<T>(name: string): CallerMemo<T> {
  return { name };
}

/**
 * What the router keeps for one request (or one local API call without a request). The core's slots are
 * declared here; the HTTP layer and features declare theirs by merging into this interface.
 */
export interface RequestState {
  /** What every hook of the request shares, nested calls through `api` included (`args.context`). */
  readonly context: HookContext;
  /** What was decided for a caller of this request, by memo (rememberForCaller): asked once per request and caller. */
  readonly decided: Map<CallerMemo<unknown>, { user: AuthUser | null; value: unknown }>;
  /**
   * True once the request wrote: a write was published for it, or its route may have written where the router
   * cannot see (a custom endpoint's side effects). What an Idempotency-Key keeps depends on it.
   */
  wrote: boolean;
  /**
   * True once the router answered the request in its route's place (its deadline passed while a hook or a wait
   * ran): a write after that is refused, since the client was told it did not happen.
   */
  answered: boolean;
}

/** A new state: for a request, or for a local API call that names none (`context`: the host's object, if it passed one). */
export function newRequestState(context: HookContext = {}): RequestState {
  return { context, decided: new Map(), wrote: false, answered: false };
}

/**
 * The states of the requests being served: a local API call given `req` (a hook's `api`, a custom endpoint's
 * req.context, host code) must find that request's state from it.
 */
const states = new WeakMap<Request, RequestState>();
/**
 * The states of local API calls without a request, by the context they were given: a hook's `api` passes its
 * context on, so nested calls share one state (and ask each field rule once), as the calls of a request do.
 */
const byContext = new WeakMap<HookContext, RequestState>();

/** The state of `req`, made on first use (the dispatcher asks first; host code calling api.local with its own request may be the first). */
export function requestState(req: Request): RequestState {
  let state = states.get(req);
  if (!state) {
    state = newRequestState();
    states.set(req, state);
  }
  return state;
}

/** The state of local API calls sharing `context` (and no request), made on first use. */
export function contextState(context: HookContext): RequestState {
  let state = byContext.get(context);
  if (!state) {
    state = newRequestState(context);
    byContext.set(context, state);
  }
  return state;
}

/** The state an operation runs with: its own (a local call's), its request's, or a new one for a call with neither. */
export function stateOf(args: { state?: RequestState; req?: Request }): RequestState {
  return args.state ?? (args.req ? requestState(args.req) : newRequestState());
}

/**
 * `make()`'s value, made once per request state (a local API call counts as one: it has a state of its own)
 * and caller: a nested call as another user makes its own.
 */
export function rememberForCaller<T>(memo: CallerMemo<T>, args: { state?: RequestState; req?: Request; user: AuthUser | null }, make: () => T): T {
  const { decided } = stateOf(args);
  const known = decided.get(memo);
  if (known && known.user === args.user) return known.value as T;
  const value = make();
  decided.set(memo, { user: args.user, value });
  return value;
}

/**
 * The request whose route handler is running, for the one thing a call that names no request must still
 * tell it: that it wrote. A custom endpoint's handler may write through `api.local` without passing `req`,
 * and an Idempotency-Key must still keep its answer. Only watched requests run their handler under it
 * (http/lifecycle.ts), so no other request pays for it.
 */
const running = new AsyncLocalStorage<RequestState>();

/** Runs `work` (a route's handler) as the work of `state`: see `noteWrite`. */
export function runAs<T>(state: RequestState, work: () => T): T {
  return running.run(state, work);
}

/** Notes a write made for `by` (its state, or its request's) and for the request whose handler made it. */
export function noteWrite(by: { state?: RequestState; req?: Request }): void {
  if (by.state || by.req) stateOf(by).wrote = true;
  const handling = running.getStore();
  if (handling) handling.wrote = true;
}
