// Resolves the caller once per request (each feature's authenticator in turn, then the host's req.user)
// and remembers it, so every handler and operation sees the same user.
import type { Request } from 'express';
import type { AuthUser } from '../config/types';
import type { Runtime } from '../operations/runtime';

const users = new WeakMap<Request, Promise<AuthUser | null>>();

async function authenticate(runtime: Runtime, req: Request): Promise<AuthUser | null> {
  for (const authenticator of runtime.hooks.authenticate) {
    const user = await authenticator(req);
    if (user !== undefined) return user;
  }
  return runtime.config.fromRequest(req);
}

/** The authenticated user of this request, or null. */
export function requestUser(runtime: Runtime, req: Request): Promise<AuthUser | null> {
  let user = users.get(req);
  if (!user) {
    user = authenticate(runtime, req);
    users.set(req, user);
  }
  return user;
}
