// The request the authenticators see for a realtime client: its own headers, plus `?token=` presented
// as a Bearer header (EventSource cannot set headers). Checked afresh every time: nothing is remembered.
import type { IncomingMessage } from 'node:http';
import type { Request } from 'express';
import type { AuthUser } from '../config/types';
import { UnauthorizedError } from '../errors';
import { authenticateFresh } from '../http/request-user';
import type { Runtime } from '../operations/runtime';

/** Every `token` query parameter, in order (none for a URL that does not parse). */
function queryTokens(req: IncomingMessage): string[] {
  try {
    return new URL(req.url ?? '/', 'http://localhost').searchParams.getAll('token');
  } catch {
    return [];
  }
}

/**
 * The request itself, or with `?token=` a stand-in whose headers carry it as `Authorization: Bearer`;
 * everything else (the host's req.user included) is read through to `req`. A token beside a header
 * credential, or a repeated one, is refused. The stand-in is a proxy, not `Object.create(req)`: V8 gives
 * an object used as a prototype a hidden class of its own, which the request would keep for as long as
 * its connection lives.
 */
export function credentialRequest(req: IncomingMessage): Request {
  const tokens = queryTokens(req);
  if (tokens.length === 0) return req as Request;
  // Using one of several would silently ignore the others (even a bad one), as with two Authorization headers.
  if (tokens.length > 1) throw new UnauthorizedError('Send one credential: one ?token=, not several.', 'invalid_token');
  const [token] = tokens;
  if (req.headers.authorization !== undefined || req.headers['x-api-key'] !== undefined) {
    throw new UnauthorizedError('Send one credential: ?token= or a header, not both.', 'invalid_token');
  }
  const headers = { ...req.headers, authorization: `Bearer ${token}` };
  return new Proxy(req, { get: (target, key, receiver): unknown => (key === 'headers' ? headers : Reflect.get(target, key, receiver)) }) as Request;
}

/**
 * Resolves the client's user now (every authenticator, then the host's req.user); rejects with a 401 for a
 * bad credential. Async, so even a refusal while reading the request is a rejection, never a throw.
 */
export async function authenticateClient(runtime: Runtime, req: IncomingMessage): Promise<AuthUser | null> {
  return authenticateFresh(runtime, credentialRequest(req));
}
