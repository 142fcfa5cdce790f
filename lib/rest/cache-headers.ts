// Conditional-request headers for reads a cache may answer: X-Cache and ETag on the answer, and 304 Not
// Modified when the client's If-None-Match already names it. Cache-Control and Vary are every read's
// (cache-control.ts).
import type { Request, Response } from 'express';
import type { ReadObserver, ReadOutcome } from '../operations/runtime';
import { isNotModified } from '../http/conditional-get';

export interface CachedReadHeaders {
  /** Pass as the operation's `cacheable`. */
  observe: ReadObserver;
  /** Sets the headers if a cache took part; true when it answered 304 (the caller then sends nothing). */
  answerNotModified(req: Request, res: Response): boolean;
}

/** One per request. */
export function createCachedReadHeaders(): CachedReadHeaders {
  let outcome: ReadOutcome | undefined;
  return {
    observe(seen) {
      outcome = seen;
    },
    answerNotModified(req, res) {
      if (!outcome) return false;
      res.set('X-Cache', outcome.hit ? 'HIT' : 'MISS');
      res.set('ETag', outcome.etag);
      // If-None-Match against the ETag just set; a malformed header is simply not a match.
      if (!isNotModified(req, res)) return false;
      res.status(304).end();
      return true;
    },
  };
}
