// What the router logs of a database outage, for every part of it that meets one: the connection going
// down and coming back (once each), and the work that failed for want of the database, folded. An outage
// fails every request, and every realtime client's credential check, at once: a line each would bury
// everything else in the log. So the first failure of each kind is one line (without a stack), the
// rest are counted and summed up when the database is back, and at most once a minute meanwhile.
import type { Logger } from '../config/types';
import { describeError, escapeControlCharacters } from '../util/loggable-error';

/**
 * The longest a kind of failure stays folded into a count without a line: through mongos or a load
 * balancer the connection reports no change of state at all (nor its return), and a long outage still
 * gets a line a minute.
 */
export const FOLD_MS = 60_000;

export interface OutageLog {
  /** The connection went down (false) or came back (true), as its events tell; only a change is logged, and its return sums up what was counted. */
  changed(up: boolean): void;
  /** A request answered 503 because its database call could not reach the database (`where`: method and path). */
  failed(where: string, error: unknown): void;
  /** A request the deadline answered 503 (`database_timeout`) because the database had not answered in time. */
  timedOut(where: string, error: Error): void;
  /** A realtime client's periodic credential check could not reach the database; the client keeps its access. */
  recheckFailed(error: unknown): void;
  /** Logs what is still counted and stops the timers. */
  close(): void;
}

/** One kind of failure: its first occurrence logged, the rest counted until the fold ends. */
interface Fold {
  /** Logs `first()` when nothing is folded, else counts one more. */
  add(first: () => void): void;
  /** Logs the count, if any, and starts afresh: the next failure is logged in full. */
  end(): void;
}

function createFold(logger: Required<Logger>, summary: (count: number) => string): Fold {
  let count = 0;
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    if (count > 0) logger.warn(`content-router: ${summary(count)}`);
    count = 0;
  };
  const arm = () => {
    timer = setTimeout(() => {
      // A minute with more failures: summed up, and the fold goes on; a quiet one ends it.
      const more = count > 0;
      flush();
      if (more) arm();
      else timer = undefined;
    }, FOLD_MS);
    // A line still to come never keeps the host's process alive.
    timer.unref();
  };
  return {
    add(first) {
      if (timer) {
        count += 1;
        return;
      }
      first();
      arm();
    },
    end() {
      clearTimeout(timer);
      timer = undefined;
      flush();
    },
  };
}

const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;

/** Creates the log of one router's connection. */
export function createOutageLog(logger: Required<Logger>): OutageLog {
  let down = false;
  const failures = createFold(logger, (n) => `${plural(n, 'more request was', 'more requests were')} answered 503: the database could not be reached.`);
  const timeouts = createFold(logger, (n) => `${plural(n, 'more request was', 'more requests were')} answered 503 database_timeout: the database did not answer in time.`);
  const rechecks = createFold(logger, (n) => `${plural(n, 'more realtime credential check', 'more realtime credential checks')} could not reach the database.`);
  const folds = [failures, timeouts, rechecks];
  return {
    changed(up) {
      if (up !== down) return;
      down = !up;
      if (down) { logger.error('content-router: the database is unreachable; routes that need it answer 503 until it is back.'); return; }
      // Failures before the connection reported the outage, and while it lasted, are one episode: summed up now.
      for (const fold of folds) fold.end();
      logger.info('content-router: the database is reachable again; requests are served.');
    },
    failed(where, error) {
      failures.add(() =>
        logger.warn(
          `content-router: ${where}: the database could not be reached (${describeError(error)}); answered 503. Further such failures are counted, not logged one by one (their number follows when the database is back, or within a minute).`,
        ),
      );
    },
    timedOut(where, error) {
      timeouts.add(() =>
        logger.warn(
          `content-router: ${where}: ${escapeControlCharacters(error.message)} Further deadline answers are counted, not logged one by one (their number follows when the database is back, or within a minute).`,
        ),
      );
    },
    recheckFailed(error) {
      rechecks.add(() =>
        logger.warn(
          `content-router: a realtime credential check could not reach the database (${describeError(error)}); its client keeps its access until a check succeeds. Further such failures are counted, not logged one by one (their number follows when the database is back, or within a minute).`,
        ),
      );
    },
    close() {
      for (const fold of folds) fold.end();
    },
  };
}
