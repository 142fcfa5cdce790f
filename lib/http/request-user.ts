// Resolves the caller once per request (each feature's authenticator in turn, then the host's req.user)
// and remembers a user, so every handler and operation sees the same one. An anonymous caller is not
// remembered: it is known at once from the request's headers, the same every time it is asked.
import type { Request } from 'express';
import type { AuthUser } from '../config/types';
import type { Runtime } from '../operations/runtime';
import { type MaybePromise, isPromiseLike } from '../util/maybe-promise';

/**
 * Where a request keeps its caller: a property rather than a WeakMap keyed by requests (requests die
 * young, and every garbage collection would have to revisit a WeakMap entry for each one in flight).
 * One key per router: a request one router passes on (a custom endpoint calling next()) may reach another
 * router with other secrets and users, which must decide for itself.
 */
const keys = new WeakMap<Runtime, symbol>();
type WithUser = Request & Record<symbol, MaybePromise<AuthUser | null> | undefined>;

function userKey(runtime: Runtime): symbol {
  let key = keys.get(runtime);
  if (!key) {
    key = Symbol('content-router.user');
    keys.set(runtime, key);
  }
  return key;
}

function authenticate(runtime: Runtime, req: Request, from: number): MaybePromise<AuthUser | null> {
  const authenticators = runtime.hooks.authenticate;
  for (let i = from; i < authenticators.length; i++) {
    const user = authenticators[i](req);
    if (isPromiseLike<AuthUser | null | undefined>(user)) {
      return Promise.resolve(user).then((found) => (found === undefined ? authenticate(runtime, req, i + 1) : found));
    }
    if (user !== undefined) return user;
  }
  return runtime.config.fromRequest(req);
}

/**
 * The authenticated user of this request, or null: at once when no credential needs checking (an
 * anonymous request, a host's req.user), else a promise. Throws for a bad credential.
 */
export function requestUserNow(runtime: Runtime, req: Request): MaybePromise<AuthUser | null> {
  const key = userKey(runtime);
  const known = (req as WithUser)[key];
  if (known !== undefined) return known;
  const user = authenticate(runtime, req, 0);
  // An anonymous caller is known at once from the request alone: not remembered, since a property added
  // to the request changes its shape and slows the rest of its handling.
  if (user !== null) (req as WithUser)[key] = user;
  return user;
}

/** The authenticated user of this request, or null; rejects for a bad credential. */
export function requestUser(runtime: Runtime, req: Request): Promise<AuthUser | null> {
  return settle(() => requestUserNow(runtime, req));
}

/**
 * The user of `req` checked afresh, never remembered nor read from memory: for a long-lived connection
 * whose credentials are checked again and again (realtime clients).
 */
export function authenticateFresh(runtime: Runtime, req: Request): Promise<AuthUser | null> {
  return settle(() => authenticate(runtime, req, 0));
}

function settle(resolve: () => MaybePromise<AuthUser | null>): Promise<AuthUser | null> {
  try {
    return Promise.resolve(resolve());
  } catch (error) {
    return Promise.reject(error);
  }
}
