// Resolves the caller once per request: the first authenticator the request presents a credential to
// decides (a bad credential is a 401 even if the host set req.user); without one, the host's req.user.
import type { Request } from 'express';
import type { AuthUser } from '../config/types';
import { requestState } from '../operations/request-state';
import type { Authenticator, Runtime } from '../operations/runtime';

declare module '../operations/request-state' {
  interface RequestState {
    /**
     * The caller a credential of the request authenticated, by router: a request one router passes on (a
     * custom endpoint calling next()) may reach another router with other secrets and users, which must
     * decide for itself.
     */
    callers?: Map<Runtime, Promise<AuthUser>>;
  }
}

/**
 * The caller when the request presents no credential of the router's own: the host's user, or null. The
 * common read is anonymous or the host's user, and knowing it without a promise is the cheapest step of
 * the read path (docs/performance.md). Undefined when a credential must be checked (requestUser does).
 */
export function callerAtOnce(runtime: Runtime, req: Request): AuthUser | null | undefined {
  return presentedTo(runtime, req) ? undefined : runtime.config.fromRequest(req);
}

/**
 * True when the answer to `req` may depend on who sent it: it presents a credential of the router's own
 * (valid or not), or the host set a user. Decided from the request alone, without checking the credential.
 */
export function presentsCaller(runtime: Runtime, req: Request): boolean {
  return presentedTo(runtime, req) !== undefined || runtime.config.fromRequest(req) !== null;
}

/** The first authenticator the request presents a credential to, if any. */
function presentedTo(runtime: Runtime, req: Request): Authenticator | undefined {
  return runtime.hooks.authenticate.find((authenticator) => authenticator.presented(req));
}

/** The authenticated user of this request, or null; rejects for a bad credential. */
export function requestUser(runtime: Runtime, req: Request): Promise<AuthUser | null> {
  const authenticator = presentedTo(runtime, req);
  if (!authenticator) return Promise.resolve(runtime.config.fromRequest(req));
  // Remembered: a credential is checked once per request, however many steps ask. An anonymous caller is
  // not: it is known from the headers at once.
  const state = requestState(req);
  const callers = (state.callers ??= new Map<Runtime, Promise<AuthUser>>());
  let known = callers.get(runtime);
  if (!known) {
    known = authenticator.authenticate(req);
    callers.set(runtime, known);
  }
  return known;
}

/**
 * The user of `req` checked afresh, never remembered nor read from memory: for a long-lived connection
 * whose credentials are checked again and again (realtime clients).
 */
export function authenticateFresh(runtime: Runtime, req: Request): Promise<AuthUser | null> {
  const authenticator = presentedTo(runtime, req);
  return authenticator ? authenticator.authenticate(req) : Promise.resolve(runtime.config.fromRequest(req));
}
