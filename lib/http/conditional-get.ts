// Conditional GET, evaluated by the origin as RFC 9110 has it: If-None-Match (weak comparison, `*`, lists
// of tags), or without it If-Modified-Since, against the answer's ETag and Last-Modified, whatever
// Cache-Control or Pragma the request carries. Every read with a validator answers through here: the
// cached reads and files before they send anything, and the JSON answers the router tags and Express sends
// (records, lists, globals; json-answer.ts) in the onSend phase.
import type { Request, Response } from 'express';
import fresh from 'fresh';
import type { SendHook } from './lifecycle';
import type { AnswerWatcher } from './send-phase';

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

/** Turns a 2xx answer the client's copy matches into a 304 without a body, as Express does for the requests it calls fresh. */
const notModified: AnswerWatcher = {
  onSend({ req, res, withoutBody }) {
    if (res.headersSent || !isNotModified(req, res)) return;
    res.statusCode = 304;
    for (const name of ['Content-Type', 'Content-Length', 'Transfer-Encoding']) res.removeHeader(name);
    withoutBody();
  },
};

/**
 * The onSend hook of GET routes: a request that carries a condition (If-None-Match, If-Modified-Since) has its
 * answer checked against it before it is written, whichever way its route answered. Express's res.send turns
 * most of them into a 304 itself; it calls any request with `Cache-Control: no-cache` stale, though, and that
 * directive tells caches to revalidate, which is what this request is doing (fetch() adds it to every request
 * with If-None-Match): the origin answers the condition regardless. A request without a condition is not
 * watched. Not for routes taking upgrades (the 101 is written on the socket).
 */
export const conditionalGet: SendHook = (route) =>
  route.method === 'get' && !route.upgrade
    ? (req) => (req.headers['if-none-match'] !== undefined || req.headers['if-modified-since'] !== undefined ? notModified : undefined)
    : undefined;
