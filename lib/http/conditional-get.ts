// Conditional GET, evaluated by the origin as RFC 9110 has it: If-None-Match (weak comparison, `*`, lists
// of tags), or without it If-Modified-Since, against the answer's ETag and Last-Modified, whatever
// Cache-Control or Pragma the request carries. Every read with a validator answers through here: the
// cached reads, files, and the JSON answers the router tags and Express sends (records, lists, globals;
// json-answer.ts).
import type { Request, Response } from 'express';
import fresh from 'fresh';
import type { RouteHook } from './lifecycle';

/**
 * True when the client's copy is current, so the answer is a 304 without a body. Only GET and HEAD
 * answers with a 2xx status qualify (a 304 stands for a 200; an error is never "not modified").
 */
export function isNotModified(req: Request, res: Response): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  if (res.statusCode < 200 || res.statusCode > 299) return false;
  // The two conditions alone: `fresh`, like Express's req.fresh, calls any request with `Cache-Control:
  // no-cache` stale. That directive tells caches to revalidate, which is what this request is doing
  // (fetch() adds it to every request with If-None-Match); the origin answers the condition regardless.
  return fresh(
    { 'if-none-match': req.headers['if-none-match'], 'if-modified-since': req.headers['if-modified-since'] },
    { etag: res.get('ETag'), 'last-modified': res.get('Last-Modified') },
  );
}

/**
 * A preHandler hook for GET routes: makes `req.fresh` this evaluation for a request that carries a
 * condition. res.json() (through res.send) consults `req.fresh` once the answer carries the router's ETag
 * (json-answer.ts); this way it decides as the cache and the file routes do, and the JSON it sends stays
 * exactly what Express would send. A request without If-None-Match or If-Modified-Since is never fresh,
 * to Express as here, and keeps its own shape: a property defined on every request measurably slows the
 * rest of its handling. Not for routes taking upgrades: a WebSocket keeps its request for its lifetime,
 * and the getter would keep the request's discarded response with it.
 */
export const conditionalGet: RouteHook = (route) =>
  route.method === 'get' && !route.upgrade
    ? (req, res, next) => {
        if (req.headers['if-none-match'] !== undefined || req.headers['if-modified-since'] !== undefined) {
          Object.defineProperty(req, 'fresh', { configurable: true, get: () => isNotModified(req, res) });
        }
        next();
      }
    : undefined;
