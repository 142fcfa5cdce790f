// The two sides of a stored answer. recordAnswer: the answer of a request holding its key (status, the
// headers a client acts on, body) is kept in the onSend phase, before it leaves, so a repeat sent once the
// client has it is a replay (a body over `idempotency.maxAnswerBytes`, or one its route marks no-store, is
// not kept: the key is, without it); a failed one gives the key up first, so a retry sent once the client
// has the error runs, and so does one whose request wrote nothing (nothing of it is kept). Only keyed
// requests are watched. replayAnswer: the kept answer sent again, marked `Idempotent-Replayed: true`.
import type { Request, Response } from 'express';
import { wasAnsweredEarly } from '../http/error-handler';
import type { FormSize } from '../http/multipart';
import type { AnswerWatcher, OutgoingAnswer } from '../http/send-phase';
import type { RequestState } from '../operations/request-state';
import type { Claim, IdempotencyStore, StoredAnswer } from './idempotency-store';
import { REPLAYED_HEADER } from './idempotency-key';

/** The headers a replay carries again: what the body is, and what a client follows or keeps from it. */
const KEPT_HEADERS = ['content-type', 'content-disposition', 'location', 'etag', 'last-modified'];
/**
 * The Cache-Control directive of an answer no store may keep (a token, RFC 9111): not kept here either when
 * the route set it. One the host sets on every answer before the router (a blanket no-store) says nothing
 * of this answer.
 */
const NO_STORE = /(?:^|,)\s*no-store\s*(?:,|$)/i;
const cacheControl = (res: Response) => String(res.getHeader('cache-control') ?? '');

export interface RecordOptions {
  store: IdempotencyStore;
  claim: Claim;
  leaseMs: number;
  /** Largest body kept (idempotency.maxAnswerBytes); a larger answer is not replayed (docs/writes.md). */
  maxAnswerBytes: number;
  /** What a repeat is compared with, once the request's body is read; undefined: nothing to compare with, the key is given up. */
  fingerprint(): { fingerprint: string; formSize?: FormSize } | undefined;
  /** A failure of the store, after which the answer still goes out. */
  report: (error: unknown) => void;
}

/** A recorded request's hold on its key: the watcher of its answer, and what whoever fails the request calls. */
export interface Recording extends AnswerWatcher {
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
 * The recording of `req`'s answer, `state` its request state (what it wrote). A success is kept before it is
 * sent; an error answered through the error hooks has given the key up already (giveUp), one a handler writes
 * itself gives it up as it is sent. The request deadline's answer is sent at once, but its route still runs
 * and may still write: the key stays claimed (a repeat is a 409) until the route ends, then is given up if
 * it failed or wrote nothing, or kept without an answer if it wrote (settle), so a retry never runs a write
 * twice. A success of a request that has written nothing (yet) is sent at once and decided when its route
 * ends (settle): kept if the route wrote after all, else given up, so a repeat runs again and nothing of it
 * is stored.
 */
export function recordAnswer(req: Request, res: Response, state: RequestState, options: RecordOptions): Recording {
  const { store, claim } = options;
  // detached: the deadline answered, the route runs on; sent: an answer of nothing written went out, the route runs on.
  let phase: 'open' | 'settling' | 'detached' | 'sent' | 'done' = 'open';
  let routeEnded = false;
  // Before the route runs: what the host set.
  const hostCacheControl = cacheControl(res);
  /** The answer as it went out (its body undefined when larger than kept). */
  let sent: OutgoingAnswer | undefined;

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
    if (!state.wrote || !result) return store.release(claim);
    const secret = cacheControl(res) !== hostCacheControl && NO_STORE.test(cacheControl(res));
    const body = withAnswer && !secret ? sent?.body : undefined;
    const answer: StoredAnswer | undefined = body && { status: res.statusCode, headers: keptHeaders(res), body };
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

  // The client left before its answer: the request runs on, and its write may still be done. It settles the
  // key as it ends (a success is kept for the retry, a failure gives the key up); should it never end, its
  // lease, no longer renewed, runs out. It may have left already, while the key was claimed.
  // A route answered before it ended (by the deadline, or its own answer of nothing written yet) renews its
  // key until it ends (settle or giveUp).
  const stopUnlessRunning = () => phase !== 'detached' && phase !== 'sent' && clearInterval(renewal);
  if (res.closed) stopUnlessRunning();
  else res.once('close', stopUnlessRunning);

  return {
    keepBody: options.maxAnswerBytes,
    onSend(answer) {
      sent = answer;
      if (phase === 'done') return undefined;
      if (res.statusCode >= 400) {
        if (wasAnsweredEarly(req)) phase = 'detached';
        else giveUp().catch(options.report);
        return undefined;
      }
      if (!state.wrote) {
        // Nothing to keep unless the route still writes: sent at once, decided as the route ends (settle).
        if (routeEnded) giveUp().catch(options.report);
        else phase = 'sent';
        return undefined;
      }
      // Held back while it is kept: nothing may answer in the route's place meanwhile (send-phase.ts).
      phase = 'settling';
      clearInterval(renewal);
      return complete(true)
        .catch(options.report)
        .finally(() => {
          phase = 'done';
        });
    },
    onHandled: () => settle().catch(options.report),
    giveUp,
    settle,
    stop: () => clearInterval(renewal),
  };
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
