// The router's error middleware: every error raised inside the router is answered here as
// problem+json, so a client's mistake never reaches the host's error handler as a 500.
import type { ErrorRequestHandler, Request, Response } from 'express';
import type { Logger } from '../config/types';
import { escapeControlCharacters, toLoggableError } from '../util/loggable-error';
import { toProblem } from './to-problem';

/**
 * Creates the error handler; 5xx errors are logged (message and stack only, never bodies or tokens),
 * with control characters escaped, since a path or an error message may carry client text.
 */
export type RouterErrorHandler = ErrorRequestHandler & {
  /**
   * Answers `res` with `error` before its route has finished (a deadline). What the route does after that is
   * dropped: its late answer fails with "headers already sent", which is logged as a warning, never passed on.
   */
  answerEarly(error: Error, req: Request, res: Response): void;
};

export function createErrorHandler(logger: Required<Logger>): RouterErrorHandler {
  const development = process.env.NODE_ENV === 'development';
  const answeredEarly = new WeakSet<Response>();
  const handler: ErrorRequestHandler = (error, req, res, next) => {
    if (res.headersSent) {
      if (!answeredEarly.has(res)) return next(error);
      logger.warn(`content-router: ${escapeControlCharacters(`${req.method} ${req.baseUrl}${req.path}`)} finished after its deadline answer`);
      return;
    }
    const problem = toProblem(error, { development });
    if (problem.unexpected) {
      const where = escapeControlCharacters(`${req.method} ${req.baseUrl}${req.path}`);
      logger.error(`content-router: ${where} failed:`, toLoggableError(error));
    }
    res.status(problem.status).set(problem.headers).type('application/problem+json').send(JSON.stringify(problem.body));
  };
  return Object.assign(handler, {
    answerEarly(error: Error, req: Request, res: Response) {
      answeredEarly.add(res);
      handler(error, req, res, () => undefined);
    },
  });
}
