// The request the authenticators see for a realtime client: its own headers, plus `?token=` presented
// as a Bearer header (EventSource cannot set headers). Checked afresh every time: nothing is remembered.
import type { IncomingMessage } from 'node:http';
import type { Request } from 'express';
import type { AuthUser } from '../config/types';
import { UnauthorizedError } from '../errors';
import { authenticateFresh } from '../http/request-user';
import type { Runtime } from '../operations/runtime';

/** The `token` query parameter, or undefined. */
function queryToken(req: IncomingMessage): string | undefined {
  let token: string | null;
  try {
    token = new URL(req.url ?? '/', 'http://localhost').searchParams.get('token');
  } catch {
    return undefined;
  }
  return token === null ? undefined : token;
}

/**
 * The request itself, or with `?token=` a stand-in whose headers carry it as `Authorization: Bearer`;
 * everything else (the host's req.user included) is read through to `req`. A token beside a header
 * credential is refused. The stand-in is a proxy, not `Object.create(req)`: V8 gives an object used as a
 * prototype a hidden class of its own, which the request would keep for as long as its connection lives.
 */
export function credentialRequest(req: IncomingMessage): Request {
  const token = queryToken(req);
  if (token === undefined) return req as Request;
  if (req.headers.authorization !== undefined || req.headers['x-api-key'] !== undefined) {
    throw new UnauthorizedError('Send one credential: ?token= or a header, not both.', 'invalid_token');
  }
  const headers = { ...req.headers, authorization: `Bearer ${token}` };
  return new Proxy(req, { get: (target, key, receiver) => (key === 'headers' ? headers : Reflect.get(target, key, receiver)) }) as Request;
}

/**
 * Resolves the client's user now (every authenticator, then the host's req.user); rejects with a 401 for a
 * bad credential. Async, so even a refusal while reading the request is a rejection, never a throw.
 */
export async function authenticateClient(runtime: Runtime, req: IncomingMessage): Promise<AuthUser | null> {
  return authenticateFresh(runtime, credentialRequest(req));
}
