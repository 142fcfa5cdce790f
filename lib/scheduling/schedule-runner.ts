// Runs due scheduled actions: every POLL_MS (a real timer: it only schedules work; what is due is decided
// on the router's clock) it claims due actions one at a time (schedule-store.ts: a lease, so each runs on
// one instance only) and runs each as the user who scheduled it, through the publish and unpublish
// operations with `origin: 'schedule'`: access is asked again then, and the `ifMatch` kept is compared
// with the working copy (a mismatch publishes nothing). The outcome is kept on the action: done, or failed
// with the problem's code as its reason (`precondition_failed`, `forbidden`, `validation_error`,
// `unique_conflict`, `not_found`...). A failure that is not a client-facing problem is also logged. An
// action the database could not be reached for is not failed: its lease is given up and it runs once the
// database is back (the outage is logged once, with the router's other outage lines).
import type { Logger } from '../config/types';
import { ContentError } from '../errors';
import { isDatabaseUnavailable } from '../http/to-problem';
import { publish } from '../operations/drafts/publish';
import { unpublish } from '../operations/drafts/unpublish';
import { parseIfMatch } from '../operations/precondition';
import type { CollectionRuntime, Runtime } from '../operations/runtime';
import { toLoggableError } from '../util/loggable-error';
import type { Outcome, ScheduleRow, ScheduleStore } from './schedule-store';

/** How often an instance looks for due actions: an action runs within about this long after `at`. */
export const POLL_MS = 1000;

export interface ScheduleRunner {
  start(): void;
  /** Runs every action due now; answers how many this instance ran. Runs of one instance never overlap. */
  runDue(): Promise<number>;
  close(): Promise<void>;
}

/** The collection or global an action applies to; undefined when the config no longer has it. */
function targetOf(runtime: Runtime, row: ScheduleRow): CollectionRuntime | undefined {
  return (row.kind === 'global' ? runtime.globals : runtime.collections).get(row.slug);
}

export function createScheduleRunner(runtime: Runtime, store: ScheduleStore, logger: Required<Logger>): ScheduleRunner {
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  let running: Promise<number> | undefined;

  async function runOne(row: ScheduleRow): Promise<Outcome> {
    const collection = targetOf(runtime, row);
    if (!collection) return { status: 'failed', reason: 'not_found', detail: `No ${row.kind} "${row.slug}" in the router's config.` };
    const operation = row.action === 'publish' ? publish : unpublish;
    try {
      await operation({
        runtime,
        collection,
        id: row.record,
        user: row.by.user,
        overrideAccess: row.by.overrideAccess,
        origin: 'schedule',
        ...(row.ifMatch !== undefined && { ifMatch: parseIfMatch(row.ifMatch, 'ifMatch') }),
      });
      return { status: 'done' };
    } catch (error) {
      if (isDatabaseUnavailable(error)) throw error;
      if (error instanceof ContentError && error.status < 500) return { status: 'failed', reason: error.code, detail: error.message };
      logger.error(`content-router: the scheduled ${row.action} ${row._id.toHexString()} of ${row.kind} "${row.slug}" failed:`, toLoggableError(error));
      return { status: 'failed', reason: 'error', detail: 'The action failed on the server; see its log.' };
    }
  }

  async function drain(): Promise<number> {
    let ran = 0;
    while (!closed) {
      const row = await store.claimDue();
      if (!row) break;
      let outcome: Outcome;
      try {
        outcome = await runOne(row);
      } catch (error) {
        await store.release(row._id).catch(() => undefined);
        throw error;
      }
      if (!(await store.settle(row._id, outcome))) logger.warn(`content-router: the scheduled ${row.action} ${row._id.toHexString()} ran past its lease; another instance may run it again`);
      ran++;
    }
    return ran;
  }

  function runDue(): Promise<number> {
    // One drain at a time per instance; a call during one runs a drain of its own right after it, so it
    // sees every action due when it was made.
    const mine: Promise<number> = (running ?? Promise.resolve(0)).catch(() => 0).then(drain);
    running = mine;
    void mine.finally(() => {
      if (running === mine) running = undefined;
    }).catch(() => undefined);
    return mine;
  }

  function poll(): void {
    timer = setTimeout(() => {
      // A drain in flight already looks at everything due.
      (running ? Promise.resolve(0) : runDue())
        .catch((error: unknown) => {
          if (isDatabaseUnavailable(error)) runtime.outage.failed('scheduled actions', error);
          else logger.error('content-router: could not run scheduled actions:', toLoggableError(error));
        })
        .finally(() => {
          if (!closed) poll();
        });
    }, POLL_MS);
    timer.unref();
  }

  return {
    start() {
      if (!closed && !timer) poll();
    },
    runDue,
    async close() {
      closed = true;
      clearTimeout(timer);
      await running?.catch(() => undefined);
    },
  };
}
