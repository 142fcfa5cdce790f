// Cache-Control and Vary of the router's answers, by one rule. The same URL answers differently per caller
// (an editor sees drafts, a rule returns a where on the user), so a shared cache (a CDN, a proxy) in front
// of the API must never hand one caller's answer to another:
// - a read (GET, HEAD) by a request without credentials: `public, no-cache`; with a credential of the
//   router's own (Bearer, API key) or a user the host set (its session): `private, no-cache`. Both vary on
//   the headers that carry credentials, so a cache keeps answers apart by them. `no-cache`: a copy may be
//   kept but is revalidated (its ETag, a cheap 304) before every use, since a write can change it any time.
// - any other answer (a write): `private, no-cache`. Not `no-store`: that marks an answer a route must not
//   let be kept at all, not even for an Idempotency-Key's replay (a token).
// - an error: `no-store` (the error handler).
// A Cache-Control the host set before the router is kept; a route may set its own (files, realtime).
import type { Runtime } from '../operations/runtime';
import type { RouteHook } from './lifecycle';
import { presentsCaller } from './request-user';

declare module './route-table' {
  interface RouteConfig {
    /**
     * `false`: the route's successful reads are the same for every caller (a file anyone may read), so they
     * do not vary on the credential headers: `Vary: Cookie` would keep CDNs from sharing a public,
     * long-lived answer. Default true.
     */
    variesByCaller?: boolean;
  }
}

/** The request headers that carry a caller: the router's credentials, and the host's session cookie. */
export const CREDENTIAL_HEADERS = ['Authorization', 'X-API-Key', 'Cookie'];
export const SHARED_READ = 'public, no-cache';
export const PERSONAL = 'private, no-cache';

/** The Vary of a read that varies by caller, as `res.vary` writes it on an answer without one. */
const VARY_BY_CALLER = CREDENTIAL_HEADERS.join(', ');

/** An onRequest hook setting the defaults above on every route's answers (not on WebSocket upgrades). */
export function cacheControlDefaults(runtime: Runtime): RouteHook {
  return (route) => {
    if (route.upgrade) return undefined;
    if (route.method === 'get') {
      const varies = route.config?.variesByCaller !== false;
      return (req, res, next) => {
        if (!res.getHeader('Cache-Control')) res.setHeader('Cache-Control', presentsCaller(runtime, req) ? PERSONAL : SHARED_READ);
        // Set as is on an answer without a Vary (the common case); merged into one the host set.
        if (varies) {
          if (res.hasHeader('Vary')) res.vary(VARY_BY_CALLER);
          else res.setHeader('Vary', VARY_BY_CALLER);
        }
        next();
      };
    }
    return (_req, res, next) => {
      if (!res.getHeader('Cache-Control')) res.setHeader('Cache-Control', PERSONAL);
      next();
    };
  };
}
