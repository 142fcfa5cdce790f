// What the router logs of a database outage: the connection going down and coming back, once each, and
// the first request whose database call failed for want of the database in each state, on one line.
// An outage answers every request 503, so a line per request would bury everything else in the log.
import type { Logger } from '../config/types';
import { escapeControlCharacters } from '../util/loggable-error';

/**
 * The longest a failed request keeps the next ones from being logged while the connection reports no
 * change: through mongos or a load balancer it reports none at all, and a later outage still gets a line.
 */
const FAILURE_QUIET_MS = 60_000;

export interface OutageLog {
  /** The connection went down (false) or came back (true), as its events tell; only a change is logged. */
  changed(up: boolean): void;
  /** A request answered 503 because its database call could not reach the database (`where`: method and path). */
  failed(where: string, error: unknown): void;
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return 'unknown error';
  return escapeControlCharacters(`${error.name}: ${error.message}`);
}

/** Creates the log of one router's connection. */
export function createOutageLog(logger: Required<Logger>): OutageLog {
  let down = false;
  /** When the last failure was logged; undefined: none since the last change. */
  let failureLoggedAt: number | undefined;
  return {
    changed(up) {
      if (up !== down) return;
      down = !up;
      failureLoggedAt = undefined;
      if (down) logger.error('content-router: the database is unreachable; routes that need it answer 503 until it is back.');
      else logger.info('content-router: the database is reachable again; requests are served.');
    },
    failed(where, error) {
      const now = Date.now();
      if (failureLoggedAt !== undefined && now - failureLoggedAt < FAILURE_QUIET_MS) return;
      failureLoggedAt = now;
      logger.warn(
        `content-router: ${where}: the database could not be reached (${describe(error)}); answered 503. Further such failures are not logged until the connection's state changes (or for a minute).`,
      );
    },
  };
}
