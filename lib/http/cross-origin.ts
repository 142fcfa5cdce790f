// Cross-site request forgery: a browser sends the host's session cookie with any request to the host, from
// any page, so a write the host's session authenticates must come from the host's own pages. Decided the
// way Go's http.CrossOriginProtection does, from the headers browsers set themselves (a page cannot forge
// them): Sec-Fetch-Site where the browser sends it, else Origin compared with the request's own origin.
// Only callers the host's session (req.user) authenticates are checked: a Bearer token or an API key is
// never sent by a browser on its own, so a request carrying one was written by its sender.
import type { Request } from 'express';
import { CrossOriginRequestError } from '../errors';
import type { Runtime } from '../operations/runtime';
import type { RouteHook } from './lifecycle';
import { callerAtOnce } from './request-user';

/** Methods that may change state; GET, HEAD and OPTIONS are safe and never checked. */
const UNSAFE = new Set(['post', 'put', 'patch', 'delete']);

/** The host the client addressed, as Express 5's req.host has it: X-Forwarded-Host only behind a trusted proxy. */
function addressedHost(req: Request): string | undefined {
  const trust = req.app.get('trust proxy fn') as ((address: string | undefined, hop: number) => boolean) | undefined;
  const forwarded = req.get('X-Forwarded-Host');
  const host = forwarded && trust?.(req.socket.remoteAddress, 0) ? forwarded.split(',')[0].trim() : req.get('Host');
  return host || undefined;
}

/** The origin this request was sent to (scheme, host, port), as a browser would write it in Origin. */
function ownOrigin(req: Request): string | undefined {
  const host = addressedHost(req);
  if (!host) return undefined;
  try {
    return new URL(`${req.protocol}://${host}`).origin;
  } catch {
    return undefined;
  }
}

/**
 * True when a browser sent `req` from a page of another origin that `trusted` does not list:
 * - `Sec-Fetch-Site: same-origin` or `none` (typed in the address bar, a bookmark): same origin.
 * - `Sec-Fetch-Site: same-site` or `cross-site`: another origin, unless its Origin is trusted.
 * - No Sec-Fetch-Site (a browser from before 2023): Origin compared with the request's own scheme and host,
 *   then with the trusted list.
 * - Neither header: not a browser (curl, a server), or a same-origin request of a very old one.
 */
export function isCrossOrigin(req: Request, trusted: ReadonlySet<string>): boolean {
  const site = req.get('Sec-Fetch-Site');
  const origin = req.get('Origin');
  if (site !== undefined && site !== '') {
    if (site === 'same-origin' || site === 'none') return false;
    return !(origin !== undefined && trusted.has(origin));
  }
  if (origin === undefined || origin === '') return false;
  if (origin === ownOrigin(req)) return false;
  return !trusted.has(origin);
}

/** `security.trustedOrigins`, as a set. */
export function trustedOrigins(runtime: Runtime): ReadonlySet<string> {
  return runtime.config.trustedOrigins;
}

/**
 * True when `req` comes from a page of another (untrusted) origin and its caller is the host's session
 * user: no credential of the router's own, and a user `auth.fromRequest` found. `req` is the request the
 * authenticators see (a realtime client's, its `?token=` included).
 */
export function isCrossOriginSession(runtime: Runtime, req: Request, trusted: ReadonlySet<string>): boolean {
  // The headers first: a same-origin or non-browser request never asks who the caller is.
  return isCrossOrigin(req, trusted) && Boolean(callerAtOnce(runtime, req));
}

/**
 * An onRequest hook for the router's unsafe routes: a request from another origin whose caller is the host's
 * session user is a 403 `cross_origin_request`, before its body is read. A request presenting a credential
 * of the router's own (Bearer, API key), or none at all, is not the session's and goes on.
 */
export function crossOriginCheck(runtime: Runtime): RouteHook {
  const trusted = trustedOrigins(runtime);
  return (route) =>
    UNSAFE.has(route.method)
      ? (req, _res, next) => {
          next(isCrossOriginSession(runtime, req, trusted) ? new CrossOriginRequestError() : undefined);
        }
      : undefined;
}
