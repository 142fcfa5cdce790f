// What the SDK's Node adapter is handed instead of the host's request: its method, URL and headers, its
// body as the parse phase read it, and `auth` carrying this router's caller. Never the host's request as it
// is: a host's middleware may have set `req.auth` (express-jwt does), which the adapter would pass on as if
// it were ours, and the request's stream is already read.
import type { AuthInfo } from '@modelcontextprotocol/server';
import type { NodeIncomingMessageLike } from '@modelcontextprotocol/node';
import { Readable } from 'node:stream';
import type { Request } from 'express';
import { rawBodyOf } from './mcp-body';
import type { McpCall } from './mcp-server';

/** The key under which the caller's context rides in AuthInfo.extra, from the route to the server factory. */
const CALL = 'contentRouterCall';

/** A request-like object for the SDK whose `auth` carries `call` (read back with callOf). */
export function mcpRequest(req: Request, call: McpCall): NodeIncomingMessageLike {
  const body = rawBodyOf(req);
  // The token is not the caller's credential: the router checked that already; the SDK only passes it on.
  const auth: AuthInfo = { token: '', clientId: 'content-router', scopes: [], extra: { [CALL]: call } };
  return {
    method: req.method,
    url: req.originalUrl || req.url,
    headers: req.headers,
    auth,
    [Symbol.asyncIterator]: () => Readable.from(body.length > 0 ? [body] : [])[Symbol.asyncIterator](),
  };
}

/** The context mcpRequest put in `auth`, or undefined. */
export function callOf(auth: AuthInfo | undefined): McpCall | undefined {
  return auth?.extra?.[CALL] as McpCall | undefined;
}
