// The router's error middleware: every error raised inside the router is answered here as
// problem+json, so a client's mistake never reaches the host's error handler as a 500.
import type { ErrorRequestHandler } from 'express';
import type { Logger } from '../config/types';
import { escapeControlCharacters, toLoggableError } from '../util/loggable-error';
import { toProblem } from './to-problem';

/**
 * Creates the error handler; 5xx errors are logged (message and stack only, never bodies or tokens),
 * with control characters escaped, since a path or an error message may carry client text.
 */
export function createErrorHandler(logger: Required<Logger>): ErrorRequestHandler {
  const development = process.env.NODE_ENV === 'development';
  return (error, req, res, next) => {
    if (res.headersSent) return next(error);
    const problem = toProblem(error, { development });
    if (problem.unexpected) {
      const where = escapeControlCharacters(`${req.method} ${req.baseUrl}${req.path}`);
      logger.error(`content-router: ${where} failed:`, toLoggableError(error));
    }
    res.status(problem.status).set(problem.headers).type('application/problem+json').send(JSON.stringify(problem.body));
  };
}
