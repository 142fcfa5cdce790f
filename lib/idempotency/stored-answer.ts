// The two sides of a stored answer. recordAnswer: the answer of a request holding its key (status, the
// headers a client acts on, body) is kept before it leaves, so a repeat sent once the client has it is a
// replay (a body over `idempotency.maxAnswerBytes`, or one its route marks no-store, is not kept: the key
// is, without it); a failed one gives the key up first, so a retry sent once the client has the error
// runs, and so does one whose request wrote nothing (nothing of it is kept). Only keyed requests are
// wrapped. replayAnswer: the kept answer sent again, marked `Idempotent-Replayed: true`.
import type { Response } from 'express';
import type { FormSize } from '../http/form-digest';
import { wasAnsweredEarly } from '../http/error-handler';
import { holdAnswer } from '../http/held-answer';
import type { WriteTrace } from '../operations/write-trace';
import type { Claim, IdempotencyStore, StoredAnswer } from './idempotency-store';

/** The headers a replay carries again: what the body is, and what a client follows or keeps from it. */
const KEPT_HEADERS = ['content-type', 'content-disposition', 'location', 'etag', 'last-modified'];
/**
 * The Cache-Control directive of an answer no store may keep (a token, RFC 9111): not kept here either when
 * the route set it. One the host sets on every answer before the router (a blanket no-store) says nothing
 * of this answer.
 */
const NO_STORE = /(?:^|,)\s*no-store\s*(?:,|$)/i;
const cacheControl = (res: Response) => String(res.getHeader('cache-control') ?? '');
export const REPLAYED_HEADER = 'Idempotent-Replayed';

type Chunk = string | Uint8Array | null | undefined;

export interface RecordOptions {
  store: IdempotencyStore;
  claim: Claim;
  leaseMs: number;
  /** Largest body kept (idempotency.maxAnswerBytes); a larger answer is not replayed (docs/writes.md). */
  maxAnswerBytes: number;
  /** What a repeat is compared with, once the request's body is read; undefined: nothing to compare with, the key is given up. */
  fingerprint(): { fingerprint: string; formSize?: FormSize } | undefined;
  /** A failure of the store, after which the answer still goes out. */
  report(error: unknown): void;
}

/** A recorded request's hold on its key, for whoever fails the request before its answer. */
export interface Recording {
  /** Whether the request wrote: its route's handler runs with it (traceWrites). */
  readonly trace: WriteTrace;
  /** Gives the key up before an error is answered, so a retry sent once the client has the error runs. */
  giveUp(): Promise<void>;
  /**
   * The route ended without failing. After the request deadline had answered it: if it wrote, the key is
   * kept, without an answer to replay (the route's own came too late to send). After its own answer went
   * out before anything was written: kept with that answer if it wrote since, else given up. Nothing
   * otherwise (its answer is settled as it is sent).
   */
  settle(): Promise<void>;
  /** Stops renewing the lease (the router is closing). */
  stop(): void;
}

/**
 * Wraps `res` of a request holding its key. A success is kept before it is sent; an error answered through
 * the error hooks has given the key up already (giveUp), one a handler writes itself gives it up as it is
 * sent. The request deadline's answer is sent at once, but its route still runs and may still write: the
 * key stays claimed (a repeat is a 409) until the route ends, then is given up if it failed or wrote
 * nothing, or kept without an answer if it wrote (settle), so a retry never runs a write twice. A success
 * of a request that has written nothing (yet) is sent at once and decided when its route ends (settle):
 * kept if the route wrote after all, else given up, so a repeat runs again and nothing of it is stored.
 */
export function recordAnswer(res: Response, options: RecordOptions): Recording {
  const { store, claim } = options;
  const trace: WriteTrace = { wrote: false };
  // detached: the deadline answered, the route runs on; sent: an answer of nothing written went out, the route runs on.
  let phase: 'open' | 'settling' | 'detached' | 'sent' | 'done' = 'open';
  let routeEnded = false;
  // Before the route runs: what the host set.
  const hostCacheControl = cacheControl(res);
  const chunks: Buffer[] = [];
  let size = 0;
  let oversize = false;
  const keep = (chunk: Chunk, encoding: BufferEncoding | undefined) => {
    if (chunk === null || chunk === undefined || oversize) return;
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, encoding ?? 'utf8') : Buffer.from(chunk);
    size += bytes.length;
    if (size > options.maxAnswerBytes) {
      oversize = true;
      chunks.length = 0;
    } else chunks.push(bytes);
  };

  // A request running longer than its lease (an upload without deadline) keeps its key while it runs.
  const renewal = setInterval(() => void store.renew(claim).catch(options.report), options.leaseMs / 2);
  renewal.unref();
  const giveUp = (): Promise<void> => {
    if (phase === 'settling' || phase === 'done') return Promise.resolve();
    phase = 'done';
    clearInterval(renewal);
    return store.release(claim);
  };
  // Should keeping it fail (the database), the answer still goes out and the key stays claimed until its
  // lease ends: giving it up would let a repeat run the write again at once.
  const complete = async (withAnswer: boolean): Promise<void> => {
    const result = options.fingerprint();
    // Nothing written, nothing to protect; nothing to compare a repeat with (no form was read), nothing to replay.
    if (!trace.wrote || !result) return store.release(claim);
    const secret = cacheControl(res) !== hostCacheControl && NO_STORE.test(cacheControl(res));
    const unkept = !withAnswer || oversize || secret;
    const answer: StoredAnswer | undefined = unkept ? undefined : { status: res.statusCode, headers: keptHeaders(res), body: Buffer.concat(chunks) };
    await store.complete(claim, { ...result, answer });
  };
  const settle = async (): Promise<void> => {
    routeEnded = true;
    if (phase !== 'detached' && phase !== 'sent') return;
    // The deadline's answer went out in place of the route's: there is no answer of its own to keep.
    const withAnswer = phase === 'sent';
    phase = 'done';
    clearInterval(renewal);
    await complete(withAnswer);
  };

  const write = res.write;
  const end = res.end;
  res.write = function (this: Response, chunk: Chunk, ...rest: unknown[]) {
    if (phase === 'open') keep(chunk, typeof rest[0] === 'string' ? (rest[0] as BufferEncoding) : undefined);
    return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
  } as Response['write'];
  res.end = function (this: Response, ...args: unknown[]) {
    const send = () => (end as (...a: unknown[]) => Response).apply(res, args);
    if (phase === 'done') return send();
    if (phase === 'settling') {
      // A second answer while the success is kept: the request deadline's 503. The success's headers go.
      for (const name of KEPT_HEADERS.slice(1)) res.removeHeader(name);
      return send();
    }
    if (res.statusCode >= 400) {
      if (wasAnsweredEarly(res)) phase = 'detached';
      else giveUp().catch(options.report);
      return send();
    }
    if (typeof args[0] !== 'function') keep(args[0] as Chunk, typeof args[1] === 'string' ? (args[1] as BufferEncoding) : undefined);
    if (!trace.wrote) {
      // Nothing to keep unless the route still writes: sent at once, decided as the route ends (settle).
      if (routeEnded) giveUp().catch(options.report);
      else phase = 'sent';
      return send();
    }
    phase = 'settling';
    // The route has answered: nothing may answer in its place while the answer is kept (held-answer.ts).
    holdAnswer(res);
    clearInterval(renewal);
    complete(true)
      .catch(options.report)
      .finally(() => {
        phase = 'done';
        // Unless the deadline answered meanwhile, or the client is gone.
        if (!res.writableEnded && !res.destroyed) send();
      });
    return res;
  } as Response['end'];

  // The client left before its answer: the request runs on, and its write may still be done. It settles the
  // key as it ends (a success is kept for the retry, a failure gives the key up); should it never end, its
  // lease, no longer renewed, runs out. It may have left already, while the key was claimed.
  // A route answered before it ended (by the deadline, or its own answer of nothing written yet) renews its
  // key until it ends (settle or giveUp).
  const stopUnlessRunning = () => phase !== 'detached' && phase !== 'sent' && clearInterval(renewal);
  if (res.closed) stopUnlessRunning();
  else res.once('close', stopUnlessRunning);
  return { trace, giveUp, settle, stop: () => clearInterval(renewal) };
}

function keptHeaders(res: Response): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const value = res.getHeader(name);
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return headers;
}

/** Sends a kept answer again. */
export function replayAnswer(res: Response, answer: { status: number; headers: Record<string, string>; body: Uint8Array }): void {
  res.status(answer.status);
  for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
  res.setHeader(REPLAYED_HEADER, 'true');
  // A 204 or 304 has no body, and a 204 must not carry Content-Length (RFC 9110).
  if (answer.status === 204 || answer.status === 304) {
    res.end();
    return;
  }
  res.setHeader('Content-Length', answer.body.byteLength);
  res.end(Buffer.from(answer.body));
}
