// The sink: each stored entry handed to the host's function (a SIEM, a file, a log pipeline), after it is
// stored and never awaited by the write that made it. Each call is bounded (SINK_TIMEOUT_MS): a slow sink is
// given up on, a failing one logged, and neither reaches the caller. Failures are logged once per burst: the
// first one, then a count of the others at most once a minute.
import type { Logger } from '../config/types';
import { toLoggableError } from '../util/loggable-error';
import type { AuditEntry } from './audit-entry';

/** How long one call of the sink may take before it counts as failed. */
export const SINK_TIMEOUT_MS = 5000;
/** How often, at most, a run of failures is logged. */
const REPORT_EVERY_MS = 60_000;

export type Sink = (entry: AuditEntry) => void;

/** The host's sink, bounded and reporting its failures; a no-op without one. */
export function boundedSink(sink: ((entry: AuditEntry) => void | Promise<void>) | undefined, logger: Logger): Sink {
  if (!sink) return () => undefined;
  let lastReport = -Infinity;
  let unreported = 0;
  const failed = (error: unknown) => {
    unreported += 1;
    const now = performance.now();
    if (now - lastReport < REPORT_EVERY_MS) return;
    lastReport = now;
    const others = unreported - 1;
    unreported = 0;
    logger.warn(`content-router: the audit sink failed${others > 0 ? ` (and ${others} more times since the last report)` : ''}; the entries are stored, the writes stand:`, toLoggableError(error));
  };
  return (entry) => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`the audit sink took more than ${SINK_TIMEOUT_MS} ms`)), SINK_TIMEOUT_MS);
      timer.unref();
    });
    // A sink that throws at once fails the same way as one whose promise rejects.
    Promise.race([Promise.resolve().then(() => sink(entry)), timeout])
      .catch(failed)
      .finally(() => clearTimeout(timer));
  };
}
