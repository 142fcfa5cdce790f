// The router's error middleware: every error raised inside the router is answered here as
// problem+json, so a client's mistake never reaches the host's error handler as a 500.
import type { ErrorRequestHandler, Request, Response } from 'express';
import type { Logger } from '../config/types';
import { DatabaseDownError, DatabaseTimeoutError, RequestAbortedError, misusedStatus } from '../errors';
import { type OutageLog, createOutageLog } from '../operations/outage-log';
import { requestState } from '../operations/request-state';
import { escapeControlCharacters, toLoggableError } from '../util/loggable-error';
import { isClientAbort } from './client-abort';
import { endJson } from './json-answer';
import { isDatabaseUnavailable, toProblem } from './to-problem';

declare module '../operations/request-state' {
  interface RequestState {
    /**
     * Set when the request deadline answered the request before its route finished: the report that the route
     * finished late, made once whether the route then writes or fails.
     */
    lateAnswer?: () => void;
  }
}

/** True when the request deadline answered (or is answering) `req` before its route finished: the route's own answer is late. */
export function wasAnsweredEarly(req: Request): boolean {
  return requestState(req).lateAnswer !== undefined;
}

/** Thrown by a route that finds its answer late: the error handler logs it as the deadline's late finish. */
export class LateAnswerError extends Error {
  constructor() {
    super('The route finished after its deadline answer.');
    this.name = 'LateAnswerError';
  }
}

/**
 * After an early answer, the route's own writes are dropped instead of throwing "headers already sent":
 * a handler answering from a timer or callback (plain Express code in a custom endpoint) would otherwise
 * throw where nothing catches it and take the host process down. Returns `late`, the report made once,
 * whether the route then writes or fails.
 */
function ignoreLateWrites(res: Response, report: () => void): () => void {
  let reported = false;
  const late = () => {
    if (!reported) report();
    reported = true;
  };
  Object.assign(res, {
    setHeader() {
      late();
      return res;
    },
    writeHead() {
      late();
      return res;
    },
    write() {
      late();
      return true;
    },
    end() {
      late();
      return res;
    },
  });
  return late;
}

export type RouterErrorHandler = ErrorRequestHandler & {
  /**
   * Answers `res` with `error` before its route has finished (a deadline). What the route does after that is
   * dropped: its late writes or failure are one debug line, never passed on.
   */
  answerEarly: (error: Error, req: Request, res: Response) => void;
};

/**
 * Creates the error handler; a 401 challenges with `challenge` (the router's schemes); 5xx errors are logged (message and stack only, never bodies or tokens),
 * with control characters escaped, since a path or an error message may carry client text. Outage 503s
 * go to `outage`, which folds them (a database that hangs or is gone fails every request): the gate's
 * refusals are not logged (the gate logs the outage), a failed database call and a deadline's 503 are
 * logged once and then counted. A route finishing after its deadline answer is a debug line. A client
 * that hung up is one debug line and a 400 nobody reads.
 */
export function createErrorHandler(logger: Required<Logger>, outage: OutageLog = createOutageLog(logger), challenge?: string): RouterErrorHandler {
  const development = process.env.NODE_ENV === 'development';
  const whereOf = (req: Request) => escapeControlCharacters(`${req.method} ${req.baseUrl}${req.path}`);
  const handler: ErrorRequestHandler = (error, req, res, next) => {
    if (res.headersSent) {
      const late = requestState(req).lateAnswer;
      if (late) late();
      else next(error);
      return;
    }
    // A client gone mid-request caused the failure, whatever it is: a client event (debug), not a 5xx.
    const aborted = isClientAbort(req);
    const problem = toProblem(aborted ? new RequestAbortedError(error) : error, { development, challenge });
    const where = whereOf(req);
    if (aborted) logger.debug(`content-router: ${where}: the client closed the connection before the request ended.`);
    else if (error instanceof DatabaseTimeoutError) outage.timedOut(where, error);
    else if (problem.status === 503 && isDatabaseUnavailable(error)) outage.failed(where, error);
    else if (problem.unexpected && !(error instanceof DatabaseDownError)) {
      const misuse = misusedStatus(error);
      logger.error(`content-router: ${where} failed${misuse ? ` with ${misuse}` : ''}:`, toLoggableError(error));
    }
    // Ended, not sent: res.send would give the problem a weak ETag of its own, which a client could take
    // for the record's (and send back in If-Match).
    // An error is never reused: a retry must reach the router (a 404 may be a record not yet written).
    res.status(problem.status).set(problem.headers).set('Cache-Control', 'no-store');
    endJson(res, problem.body, 'application/problem+json; charset=utf-8');
  };
  return Object.assign(handler, {
    answerEarly(error: Error, req: Request, res: Response) {
      const state = requestState(req);
      // Marked before it is sent: what watches the answer go out (an Idempotency-Key's) knows it is the
      // deadline's, and the route's operations write nothing more (the client is told they did not happen).
      state.lateAnswer = () => undefined;
      state.answered = true;
      handler(error, req, res, () => undefined);
      // Every request a hung database held finishes late once it answers: a debug line each, the deadline's fold has the rest.
      state.lateAnswer = ignoreLateWrites(res, () => logger.debug(`content-router: ${whereOf(req)} finished after its deadline answer`));
    },
  });
}
