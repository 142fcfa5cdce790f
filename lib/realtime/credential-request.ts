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
 * A stand-in for `req` whose headers carry `?token=` as `Authorization: Bearer`; everything else (the
 * host's req.user included) is read through to `req`. A token beside a header credential is refused.
 */
export function credentialRequest(req: IncomingMessage): Request {
  const standIn = Object.create(req) as Request;
  const token = queryToken(req);
  if (token === undefined) {
    Object.defineProperty(standIn, 'headers', { value: req.headers, enumerable: true });
    return standIn;
  }
  if (req.headers.authorization !== undefined || req.headers['x-api-key'] !== undefined) {
    throw new UnauthorizedError('Send one credential: ?token= or a header, not both.', 'invalid_token');
  }
  Object.defineProperty(standIn, 'headers', { value: { ...req.headers, authorization: `Bearer ${token}` }, enumerable: true });
  return standIn;
}

/**
 * Resolves the client's user now (every authenticator, then the host's req.user); rejects with a 401 for a
 * bad credential. Async, so even a refusal while reading the request is a rejection, never a throw.
 */
export async function authenticateClient(runtime: Runtime, req: IncomingMessage): Promise<AuthUser | null> {
  return authenticateFresh(runtime, credentialRequest(req));
}
