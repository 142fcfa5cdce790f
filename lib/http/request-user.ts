// Resolves the caller once per request (host-set req.user, or the package's own auth when added)
// and remembers it, so every handler and operation sees the same user.
import type { Request } from 'express';
import type { AuthUser } from '../config/types';
import type { Runtime } from '../operations/runtime';

const users = new WeakMap<Request, Promise<AuthUser | null>>();

/** The authenticated user of this request, or null. */
export function requestUser(runtime: Runtime, req: Request): Promise<AuthUser | null> {
  let user = users.get(req);
  if (!user) {
    user = runtime.authenticate(req);
    users.set(req, user);
  }
  return user;
}
