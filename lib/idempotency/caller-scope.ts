// Whose keys a key is among: a key is only ever compared with the same caller's keys. An authenticated
// caller is its auth collection and user id (every session and refresh of its tokens, so a retry survives
// a token refresh), plus its scopes for an API key (a key with fewer rights never gets the answer of one
// with more); an anonymous caller is its client address as the rate limiter sees it.
import type { Request } from 'express';
import { createClientKey } from '../http/client-key';
import { requestUser } from '../http/request-user';
import type { Runtime } from '../operations/runtime';

export type CallerScope = (req: Request) => Promise<string>;

/** The scope of a request's caller; rejects for a bad credential (the 401 the route would answer). */
export function createCallerScope(runtime: Runtime): CallerScope {
  // The rate limiter's keyBy when the host set one (its clients are those), else the address.
  const clientKey = createClientKey(runtime.config.clientKeyBy);
  return async (req) => {
    const user = await requestUser(runtime, req);
    if (!user) return `client\n${clientKey(req)}`;
    const scopes = user.scopes ? [...user.scopes].sort().join(',') : '*';
    return `user\n${user.collection ?? ''}\n${user.id}\n${scopes}`;
  };
}
