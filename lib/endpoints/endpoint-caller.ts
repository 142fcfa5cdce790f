// The caller of a custom endpoint, both forms: the request's user held to API-key scopes by the rule the
// collection routes use (a key without the scope acts as an anonymous caller), and what that means for
// the handler's errors and for the host's req.user while it runs.
import type { Request } from 'express';
import type { AuthUser, EndpointMethod, Scope } from '../config/types';
import { UnauthorizedError } from '../errors';
import { requestUser } from '../http/request-user';
import type { RouteResponse } from '../http/route-table';
import { hasScope, insufficientScope } from '../operations/access';
import type { Runtime } from '../operations/runtime';

export interface EndpointCaller {
  /** The user the handler works as: null when anonymous, or when its key lacks the scope. */
  user: AuthUser | null;
  /** The scope the caller's key lacked (it then acts as anonymous); undefined otherwise. */
  missing?: Scope;
}

/** The scope a request needs: the endpoint's own, else read for GET (HEAD is served by GET), write otherwise. */
export function endpointScope(method: EndpointMethod, declared?: Scope): Scope {
  return declared ?? (method === 'get' ? 'read' : 'write');
}

/**
 * The refusals every custom endpoint may answer, whatever its handler does, as the document lists them: a
 * bad credential (401, as on every route), and a key without `scope` acting as anonymous where anonymous
 * callers are refused (403 insufficient_scope); the handler may also throw either itself.
 */
export function callerResponses(scope: Scope): Record<number, RouteResponse> {
  return {
    401: { description: 'Invalid credentials (a bad token or API key), or an anonymous caller the handler refused' },
    403: { description: `Not allowed by the handler; or an API key without the \`${scope}\` scope, which acts as an anonymous caller here, refused as one (insufficient_scope)` },
  };
}

/** Resolves the caller (a bad credential rejects with its 401, as on every route) and holds it to `scope`. */
export async function endpointCaller(runtime: Runtime, req: Request, scope: Scope): Promise<EndpointCaller> {
  const user = await requestUser(runtime, req);
  return hasScope(user, scope) ? { user } : { user: null, missing: scope };
}

/**
 * A key acting as anonymous that is refused as anonymous (the handler's own check, or an operation of
 * req.context) gets 403 `insufficient_scope`, as on collection routes: a 401 would ask it to log in.
 */
export function scopedError(caller: EndpointCaller, error: unknown): unknown {
  return caller.missing && error instanceof UnauthorizedError ? insufficientScope(caller.missing) : error;
}

type HostRequest = Request & { user?: unknown };

/**
 * While a caller acts as anonymous, the host's `req.user` (a session beside the key, or the host's own
 * scoped user) is hidden too, so a handler checking it sees no more than `user`. Returns the undo, for
 * when the request is answered or handed back to the host.
 */
export function hideHostUser(req: Request, caller: EndpointCaller): () => void {
  const host = req as HostRequest;
  if (!caller.missing || host.user === undefined) return () => undefined;
  const hidden = host.user;
  host.user = undefined;
  return () => {
    // A handler that set its own req.user keeps it.
    if (host.user === undefined) host.user = hidden;
  };
}
