// Cross-site request forgery: a browser sends the host's session cookie with any request to the host, from
// any page, so a write the host's session authenticates must come from the host's own pages. Decided the
// way Go's http.CrossOriginProtection does, from the headers browsers set themselves (a page cannot forge
// them): Sec-Fetch-Site where the browser sends it, else Origin compared with the request's own origin.
// Only callers the host's session (req.user) authenticates are checked: a Bearer token or an API key is
// never sent by a browser on its own, so a request carrying one was written by its sender.
import type { Request } from 'express';
import { CrossOriginRequestError } from '../errors';
import { type RefusedWrite, noteRefusedWrite } from '../operations/refused-write';
import type { RefusedWriteAction, Runtime } from '../operations/runtime';
import type { RouteHook } from './lifecycle';
import type { RouteDef } from './route-table';
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
  return (route) => {
    if (!UNSAFE.has(route.method)) return undefined;
    const write = refusableWrite(runtime, route);
    return (req, _res, next) => {
      if (!isCrossOriginSession(runtime, req, trusted)) {
        next();
        return;
      }
      const refused = new CrossOriginRequestError();
      // A write of records refused here is one the audit log records, as the operation would have refused it.
      if (write) noteRefusedWrite({ runtime, ...write, user: callerAtOnce(runtime, req) ?? null, req, id: req.params.id }, refused);
      next(refused);
    };
  };
}

/** The record routes' writes by their operationId's last part (`posts.updateMany`: an update). */
const WRITES: Readonly<Record<string, RefusedWriteAction>> = {
  create: 'create',
  update: 'update',
  updateMany: 'update',
  save: 'update',
  delete: 'delete',
  deleteMany: 'delete',
  restore: 'restore',
  publish: 'publish',
  unpublish: 'unpublish',
};

/** The write of records (or a global) a route makes, as the audit log names it; undefined for any other route. */
function refusableWrite(runtime: Runtime, route: RouteDef): Pick<RefusedWrite, 'collection' | 'action'> | undefined {
  const parts = route.operationId.split('.');
  const last = parts[parts.length - 1];
  const action = Object.hasOwn(WRITES, last) ? WRITES[last] : undefined;
  if (action === undefined) return undefined;
  // `<slug>.<op>` of a collection's routes, `globals.<slug>.<op>` of a global's.
  const collection = parts.length === 2 ? runtime.collections.get(parts[0]) : parts.length === 3 && parts[0] === 'globals' ? runtime.globals.get(parts[1]) : undefined;
  return collection && { collection, action };
}
