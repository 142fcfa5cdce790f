// Idempotency-Key as a feature (docs/writes.md): on the routes whose config says `idempotent`, a request
// carrying the header claims its key for its caller before its handler runs; a repeat of a completed one
// gets the stored answer again and writes nothing, a changed request with the key is a 422, a repeat while
// the first runs a 409, a new key beyond the caller's quota a 429. A request that wrote nothing keeps
// nothing. A request without the header is not touched: no store access, no watcher. Its phases: onRequest
// reads the header (and asks for the form's digest), preHandler claims the key or replays, onSend keeps the
// answer (stored-answer.ts), onError gives the key up before the error is answered.
import type { Request, RequestHandler, Response } from 'express';
import { DatabaseTimeoutError, IdempotencyKeyInFlightError, IdempotencyKeyReusedError, IdempotencyQuotaExceededError } from '../errors';
import { LateAnswerError } from '../http/error-handler';
import type { Feature } from '../http/feature';
import { FormDigest, readFormDigest } from '../http/form-digest';
import type { FormSize } from '../http/multipart';
import type { RouteDef } from '../http/route-table';
import { isDatabaseUnavailable } from '../http/to-problem';
import { type RequestState, requestState } from '../operations/request-state';
import { toLoggableError } from '../util/loggable-error';
import { hashToken } from '../util/random-token';
import { createCallerScope, readIdempotencyKey, requestFingerprint, withIdempotencyDocs } from './idempotency-key';
import { type ParsedIdempotency, leaseFor, parseIdempotencyOptions } from './idempotency-options';
import { createIdempotencyStore, within } from './idempotency-store';
import { type Recording, recordAnswer, replayAnswer } from './stored-answer';
import { nowMs } from '../util/clock';

declare module '../operations/request-state' {
  interface RequestState {
    /** A keyed request's: its key, its form's digest (a form route), and once claimed its recording. */
    idempotency?: { key: string; digest?: FormDigest; recording?: Recording };
  }
}

declare module '../http/route-table' {
  interface RouteConfig {
    /**
     * true: a POST (or PATCH) a client may retry with an `Idempotency-Key`: a repeat gets the first answer
     * again and writes nothing. Never on credential routes, whose answers must not be replayed.
     */
    idempotent?: boolean;
  }
}

/** A fingerprint, and for a form its size. */
interface Fingerprint {
  fingerprint: string;
  formSize?: FormSize;
}

/** The request's fingerprint once its body is read: a JSON body, or a form read in the parse phase. */
function fingerprintOf(req: Request, route: RouteDef, key: string, digest: FormDigest | undefined): Fingerprint | undefined {
  if (route.body?.type !== 'multipart') return { fingerprint: requestFingerprint(req, key, { json: req.body as unknown }) };
  const form = digest?.value;
  return form && { fingerprint: requestFingerprint(req, key, { form: form.digest }), formSize: form.size };
}

const REPLAY_NOT_KEPT =
  "This Idempotency-Key's request was completed, but its answer was not kept for a replay (too large to keep, marked Cache-Control: no-store, or finished after the request deadline's answer); use a new key to run it again.";

export const idempotencyFeature: Feature<ParsedIdempotency | undefined> = {
  name: 'idempotency',
  options: parseIdempotencyOptions,
  create(runtime, lifecycle, parsed) {
    const { config } = runtime;
    if (!parsed) return undefined;
    const options = { ...parsed, leaseMs: leaseFor(config.requestTimeoutMS) };
    const { leaseMs, maxAnswerBytes, maxKeysPerCaller } = options;
    const store = createIdempotencyStore(runtime.connection, options, config.requestTimeoutMS, config.clock);
    const scopeOf = createCallerScope(runtime);
    const running = new Set<Recording>();
    const idempotent = (route: RouteDef) => route.config?.idempotent === true;
    // After the answer (or in its place): never the request's failure. An outage is the outage log's.
    const report = (error: unknown) => {
      if (error instanceof DatabaseTimeoutError || isDatabaseUnavailable(error)) runtime.outage.failed('idempotency key', error);
      else config.logger.warn('content-router: could not settle an Idempotency-Key:', toLoggableError(error));
    };

    /** Answers a repeat, or claims the key and records the answer; true when it answered. */
    async function check(req: Request, res: Response, route: RouteDef, state: RequestState, keyed: NonNullable<RequestState['idempotency']>): Promise<boolean> {
      const { key, digest } = keyed;
      const scope = await within(config.requestTimeoutMS, scopeOf(req));
      const id = hashToken(`${scope}\n${key}`);
      const caller = hashToken(scope);
      const known = fingerprintOf(req, route, key, digest);
      const outcome = await store.claim(id, caller, known?.fingerprint);
      if ('claim' in outcome) {
        // Counted with this key: a new key beyond the quota is refused before anything runs.
        const over = await store.overQuota(caller, maxKeysPerCaller).catch(async (error: unknown) => {
          await store.release(outcome.claim).catch(report);
          throw error;
        });
        if (over) {
          await store.release(outcome.claim).catch(report);
          throw new IdempotencyQuotaExceededError(maxKeysPerCaller, (over.firstExpiry.getTime() - nowMs(config.clock)) / 1000);
        }
        const recording = recordAnswer(req, res, state, {
          store,
          claim: outcome.claim,
          leaseMs,
          maxAnswerBytes,
          // A streamed form (an upload) was digested while the handler read it.
          fingerprint: () => known ?? fingerprintOf(req, route, key, digest),
          report,
        });
        keyed.recording = recording;
        // Its client may have left while the key was claimed: then 'close' has been emitted already.
        if (!res.closed) {
          running.add(recording);
          res.once('close', () => running.delete(recording));
        }
        return false;
      }
      if ('busy' in outcome) throw new IdempotencyKeyInFlightError();
      const { row } = outcome;
      // A different request is refused whatever the state of the first one, as soon as that is known.
      if (known && row.fingerprint !== undefined && known.fingerprint !== row.fingerprint) throw new IdempotencyKeyReusedError();
      if (row.state === 'running') throw new IdempotencyKeyInFlightError();
      // Only a repeat of a streamed form that has a stored answer reads its form here, to compare; a key
      // kept for anything but a form is another request at once.
      const fingerprint = known?.fingerprint ?? (row.formSize && (await streamedFingerprint(req, res, key, row.formSize)));
      if (fingerprint !== row.fingerprint) throw new IdempotencyKeyReusedError();
      if (!row.answer) throw new IdempotencyKeyReusedError(REPLAY_NOT_KEPT);
      const { body } = row.answer;
      replayAnswer(res, { ...row.answer, body: body.buffer.subarray(0, body.position) });
      return true;
    }

    async function streamedFingerprint(req: Request, res: Response, key: string, size: FormSize): Promise<string | undefined> {
      const digest = await readFormDigest(req, res, size);
      return digest === undefined ? undefined : requestFingerprint(req, key, { form: digest });
    }

    lifecycle.onRoute.push((route) => {
      if (idempotent(route)) Object.assign(route, withIdempotencyDocs(route, options.ttlMs));
    });
    // The header is read first, so a malformed one costs no body; a form to compare is digested as it is read.
    lifecycle.onRequest.push((route) =>
      idempotent(route)
        ? (req, _res, next) => {
            const key = readIdempotencyKey(req);
            if (key !== undefined) {
              const state = requestState(req);
              const digest = route.body?.type === 'multipart' ? new FormDigest() : undefined;
              state.idempotency = { key, digest };
              if (digest) state.formObserver = digest;
            }
            next();
          }
        : undefined,
    );
    lifecycle.preHandler.push((route): RequestHandler | undefined =>
      idempotent(route)
        ? (req, res, next) => {
            const state = requestState(req);
            if (!state.idempotency) {
              next();
              return;
            }
            check(req, res, route, state, state.idempotency).then((answered) => (answered ? undefined : next()), next);
          }
        : undefined,
    );
    // The claimed key's answer is kept as it goes out, and the key settled once the handler has returned
    // (a request answered before it ended: stored-answer.ts).
    lifecycle.onSend.push((route) => (idempotent(route) ? (req) => requestState(req).idempotency?.recording : undefined));
    // Before the error handler answers: the key is free by the time the client reads the error.
    lifecycle.onError.push((error, req, _res, next) => {
      const recording = requestState(req).idempotency?.recording;
      if (!recording) {
        next(error);
        return;
      }
      // An object endpoint that finds its answer late has not failed: its write is done.
      (error instanceof LateAnswerError ? recording.settle() : recording.giveUp())
        .catch(report)
        .finally(() => next(error));
    });
    lifecycle.onReady.push(async () => {
      await store.createIndexes().catch((error: unknown) =>
        config.logger.warn('content-router: could not create the Idempotency-Key TTL index (expired keys stay until it exists; they are ignored meanwhile):', error),
      );
    });
    lifecycle.onClose.push(() => {
      for (const recording of running) recording.stop();
      running.clear();
    });
    return undefined;
  },
};
