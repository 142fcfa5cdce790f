// The onSend phase: what runs once a route has produced its answer and before that answer is written. A
// route answers through Express (res.json, res.end, a stream piped into res), so the answer is caught where
// every one of them ends: res.end. Only a request some watcher asked to watch is touched (an Idempotency-Key's
// request, a conditional GET): every other answer goes out as Express writes it, at no cost. A watcher may look at the answer's
// status, headers and body, change its headers, and hold it back while it works (the key's answer is stored
// before the client can send a repeat); meanwhile the route counts as answered (hasAnswered).
import type { Request, Response } from 'express';
import { requestState } from '../operations/request-state';

declare module '../operations/request-state' {
  interface RequestState {
    /** True while the route's answer is held back by the onSend phase: the route has answered, although its headers are not out yet. */
    held?: boolean;
  }
}

/** An answer as its route ends it, before it is written. */
export interface OutgoingAnswer {
  readonly req: Request;
  readonly res: Response;
  /** The body as written, when a watcher asked to keep it (keepBody) and it was not larger; else undefined. */
  readonly body: Buffer | undefined;
  /** Ends the answer without the body its route gave it (a 304 in place of a 200); only while nothing of it is written yet. */
  withoutBody: () => void;
}

/** What watches one request's answer go out (an onSend hook opens one per request, or none). */
export interface AnswerWatcher {
  /** Keep a copy of the body, up to this many bytes, for `answer.body`. */
  readonly keepBody?: number;
  /**
   * The route ended its answer. Its status and headers are final unless changed here (when nothing was
   * written yet); a promise holds the answer back until it settles, then the answer goes out unless another
   * was written meanwhile (the request deadline's). Must not fail: its own failures are its to report.
   */
  onSend(answer: OutgoingAnswer): void | Promise<void>;
  /** The route's handler returned (its promise resolved): it writes no more. Must not fail either. */
  onHandled?(): void | Promise<void>;
}

/**
 * The headers that describe a held answer's body, removed from an answer written while it is held (the
 * request deadline's 503): they are not that answer's.
 */
const REPRESENTATION_HEADERS = ['content-disposition', 'location', 'etag', 'last-modified'];

type Chunk = string | Uint8Array | null | undefined;

/** True when `req` has been answered: its headers are out, or its answer is held back by the onSend phase. */
export function hasAnswered(req: Request, res: Response): boolean {
  return res.headersSent || requestState(req).held === true;
}

/** Runs `watchers` in order on the answer, waiting for each one that returns a promise. */
function runWatchers(watchers: readonly AnswerWatcher[], answer: OutgoingAnswer, from = 0): void | Promise<void> {
  for (let index = from; index < watchers.length; index++) {
    const pending = watchers[index].onSend(answer);
    if (pending) return pending.then(() => runWatchers(watchers, answer, index + 1));
  }
  return undefined;
}

/**
 * Watches `res` for `watchers`: its body is copied as it is written (up to the largest keepBody), and its
 * end runs the watchers before it is written.
 */
export function watchAnswer(req: Request, res: Response, watchers: readonly AnswerWatcher[]): void {
  const state = requestState(req);
  const limit = Math.max(0, ...watchers.map((watcher) => watcher.keepBody ?? 0));
  const chunks: Buffer[] = [];
  let size = 0;
  let oversize = limit === 0;
  let ending = false;
  let bodyless = false;
  const keep = (chunk: Chunk, encoding: unknown) => {
    if (chunk === null || chunk === undefined || oversize) return;
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8') : Buffer.from(chunk);
    size += bytes.length;
    if (size > limit) {
      oversize = true;
      chunks.length = 0;
    } else chunks.push(bytes);
  };
  // Kept unbound on purpose: each is called with the response as `this`, as Node calls them.
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with the response as `this`
  const write = res.write;
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with the response as `this`
  const end = res.end;
  res.write = function (this: Response, chunk: Chunk, ...rest: unknown[]) {
    if (!ending) keep(chunk, rest[0]);
    return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
  } as Response['write'];
  res.end = function (this: Response, ...args: unknown[]) {
    const send = () => (end as (...a: unknown[]) => Response).apply(res, bodyless ? [] : args);
    if (ending) {
      // A second answer while the first is held: the request deadline's. It goes out at once, without the
      // held answer's headers; the held one is then dropped.
      if (state.held) for (const name of REPRESENTATION_HEADERS) res.removeHeader(name);
      return send();
    }
    ending = true;
    if (typeof args[0] !== 'function') keep(args[0] as Chunk, args[1]);
    const answer: OutgoingAnswer = {
      req,
      res,
      body: oversize ? undefined : Buffer.concat(chunks),
      withoutBody: () => {
        if (!res.headersSent) bodyless = true;
      },
    };
    const pending = runWatchers(watchers, answer);
    if (!pending) return send();
    state.held = true;
    void pending.then(undefined, () => undefined).finally(() => {
      state.held = false;
      // Unless another answer went out meanwhile, or the client is gone.
      if (!res.writableEnded && !res.destroyed) send();
    });
    return res;
  } as Response['end'];
}

/** Tells `watchers` that the route's handler returned, in order. */
export async function handled(watchers: readonly AnswerWatcher[]): Promise<void> {
  for (const watcher of watchers) await watcher.onHandled?.();
}
