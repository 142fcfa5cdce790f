// Attempts deliveries: one queue per endpoint with a few attempts at a time, so a slow or hanging receiver
// only ever holds its own queue. Rows reach a queue two ways: recorded just now by this instance (leased at
// once, attempted without a poll), or claimed by the poll loop when due (retries, another instance's work
// whose lease ran out, rows recorded while a queue was full). Leases are renewed while rows are held;
// close() lets attempts in flight finish for a moment, then aborts them and gives every lease back.
import type { Logger } from '../config/types';
import type { DeliveryRow, DeliveryStore, Settlement } from './delivery-store';
import type { AttemptListener } from './retry-event';
import { sendWebhook } from './send-webhook';
import type { ResolvedEndpoint, ResolvedWebhooks } from './webhook-options';
import { type Clock, after, nowMs } from '../util/clock';

/** Attempts one endpoint runs at once. */
export const ENDPOINT_CONCURRENCY = 16;
/** Rows one endpoint's queue holds (running and waiting): a bound on memory; more wait in the database for a poll. */
export const QUEUE_ROOM = 1000;
/** How often due rows are looked for when nothing woke the loop sooner (a retry due sooner wakes it then). */
export const POLL_MS = 1000;
/** A lease, renewed every third of it while the row is held. */
export const LEASE_MS = 30_000;
/** How long close() lets attempts in flight finish before it aborts them. */
export const CLOSE_GRACE_MS = 1000;
/** Most attempts one write records: a database that fell behind is not handed one huge write. */
const SETTLE_BATCH = 500;
/** Each retry delay is varied by up to this share, either way. */
const JITTER = 0.2;

export interface DeliveryQueue {
  /** Whether `endpoint` has room for rows recorded now (else they are left for a poll). */
  hasRoom(endpoint: ResolvedEndpoint): boolean;
  /** Queues rows this instance leased when it recorded them. */
  push(endpoint: ResolvedEndpoint, rows: readonly DeliveryRow[]): void;
  /** Starts the poll loop. */
  start(): void;
  /** Looks for due rows soon (a row was queued again). */
  wake(): void;
  /** Rows of `url` were recorded without a lease (its queue was full): it polls for them once it has room again. */
  backlog(url: string): void;
  /** Stops polling, finishes or aborts attempts in flight, gives back every lease. */
  close(): Promise<void>;
}

interface EndpointQueue {
  readonly endpoint: ResolvedEndpoint;
  readonly waiting: DeliveryRow[];
  /** Rows being attempted, by id. */
  readonly running: Map<string, Promise<void>>;
  /** Rows of this endpoint wait in the database for room here. */
  backlog: boolean;
}

/** A retry delay with jitter, so the retries of a burst of failures do not all come at once. */
export function jittered(delay: number, random: () => number = Math.random): number {
  return Math.round(delay * (1 - JITTER + 2 * JITTER * random()));
}

/** What follows a failed attempt: the next retry, or `failed` when the delays have run out. */
function afterFailure(tries: number, delays: readonly number[], now: number): Pick<Settlement, 'status'> & { nextAttemptAt?: Date } {
  if (tries >= delays.length) return { status: 'failed' };
  return { status: 'pending', nextAttemptAt: new Date(now + jittered(delays[tries])) };
}

/**
 * `clock`: the router's; due times, leases and retry schedules are in its time (the timers that wait for them
 * are Node's). `attempted`: told of every attempt that ended (the audit log records the retries among them).
 */
export function createDeliveryQueue(store: DeliveryStore, options: ResolvedWebhooks, logger: Required<Logger>, clock: Clock, attempted?: AttemptListener): DeliveryQueue {
  const now = () => nowMs(clock);
  const queues = new Map<string, EndpointQueue>(options.endpoints.map((endpoint) => [endpoint.url, { endpoint, waiting: [], running: new Map(), backlog: false }]));
  const closing = new AbortController();
  let closed = false;
  /** close() sets `closed` while a poll awaits: a call, as control-flow narrowing cannot see that. */
  const isClosed = (): boolean => closed;
  let started = false;
  let polling: Promise<void> | undefined;
  /** Ended attempts not yet written, and the write under way. */
  const unwritten: Array<{ id: string; settlement: Settlement }> = [];
  let writing: Promise<void> | undefined;
  const inWrite = new Set<string>();
  /** A poll was asked for while one ran: run another as soon as it ends. */
  let pollAgain = false;
  let pollTimer: NodeJS.Timeout | undefined;
  let wakeAt = Infinity;
  const renewTimer = setInterval(() => void renewLeases(), LEASE_MS / 3);
  renewTimer.unref();

  // eslint-disable-next-line @typescript-eslint/no-non-null-assertion -- a queue is made for every configured endpoint
  const queueOf = (endpoint: ResolvedEndpoint) => queues.get(endpoint.url)!;
  const held = (queue: EndpointQueue) => queue.waiting.length + queue.running.size;
  const lease = () => after(clock, LEASE_MS);

  async function renewLeases(): Promise<void> {
    // Every row still this instance's: waiting, running, and attempted but not yet written down (a slow
    // database must not let a lease run out under an attempt that happened, or the row is claimed and sent again).
    const ids = [...queues.values()].flatMap((queue) => [...queue.waiting.map((row) => row._id), ...queue.running.keys()]);
    ids.push(...unwritten.map((entry) => entry.id), ...inWrite);
    await store.renew(ids, lease()).catch((error: unknown) => logger.warn('content-router: webhooks could not renew their delivery leases:', error));
  }

  /** Starts attempts while the endpoint has both rows waiting and a free slot. */
  function drain(queue: EndpointQueue): void {
    while (!closed && queue.running.size < ENDPOINT_CONCURRENCY) {
      const row = queue.waiting.shift();
      if (!row) break;
      const attempt = attemptOnce(queue.endpoint, row).finally(() => {
        queue.running.delete(row._id);
        drain(queue);
        // Half empty with rows waiting in the database: claim them now rather than at the next poll.
        if (queue.backlog && held(queue) <= QUEUE_ROOM / 2) {
          queue.backlog = false;
          schedule(now());
        }
      });
      queue.running.set(row._id, attempt);
    }
  }

  /** Attempts a row; its slot is free once the receiver answered, the attempt is written with others. */
  async function attemptOnce(endpoint: ResolvedEndpoint, row: DeliveryRow): Promise<void> {
    // Only pending rows are queued, and every pending row has a body (one without is recorded failed and never requeued).
    // eslint-disable-next-line @typescript-eslint/no-non-null-assertion -- see above
    const { attempt, delivered } = await sendWebhook({ endpoint, id: row._id, payload: row.payload!, timeoutMs: options.timeoutMs, signal: closing.signal, at: clock.now() });
    // Aborted by close(): not the receiver's failure. The lease is given back and the row is sent later.
    if (closing.signal.aborted && !delivered) return;
    const settlement = (delivered ? { status: 'delivered', attempt } : { ...afterFailure(row.tries, options.delays, now()), attempt }) as Settlement;
    attempted?.(row, settlement);
    if (settlement.status === 'failed') logger.warn(`content-router: webhook delivery ${row._id} (${row.type}) to ${endpoint.url} failed for good after ${row.attempts.length + 1} attempts: ${attempt.error}`);
    unwritten.push({ id: row._id, settlement });
    void writeSettlements();
  }

  /** Writes the attempts that ended, one write at a time, each holding what ended meanwhile (up to SETTLE_BATCH). */
  function writeSettlements(): Promise<void> {
    if (writing || unwritten.length === 0) return writing ?? Promise.resolve();
    const batch = unwritten.splice(0, SETTLE_BATCH);
    for (const { id } of batch) inWrite.add(id);
    writing = store
      .settle(batch)
      .then((kept) => {
        if (kept < batch.length) logger.warn(`content-router: ${batch.length - kept} webhook deliveries lost their lease while they ran (it ran out and they were claimed again); they may be sent twice`);
        // The soonest retry of the batch wakes the poll loop then (nothing sooner is due than what it already waits for).
        const soonest = batch.reduce((at, { settlement }) => (settlement.status === 'pending' ? Math.min(at, settlement.nextAttemptAt.getTime()) : at), Infinity);
        if (soonest < Infinity) schedule(soonest);
      })
      .catch((error: unknown) => {
        // The attempts happened but could not be written down: the leases run out and the rows are sent again.
        logger.warn(`content-router: could not record ${batch.length} webhook attempts; those deliveries will be sent again:`, error);
      })
      .finally(() => {
        for (const { id } of batch) inWrite.delete(id);
        writing = undefined;
        void writeSettlements();
      });
    return writing;
  }

  /**
   * Claims due rows for every endpoint with room; answers when the soonest row not yet due falls due (Infinity
   * when none), so the loop wakes then rather than at its next regular poll.
   */
  async function poll(): Promise<number> {
    let soonest = Infinity;
    for (const queue of queues.values()) {
      const room = QUEUE_ROOM - held(queue);
      if (closed || room <= 0) continue;
      const rows = await store.claim(queue.endpoint.url, lease(), room);
      if (isClosed()) {
        await store.release(rows.map((row) => row._id));
        return soonest;
      }
      queue.waiting.push(...rows);
      drain(queue);
      // A full claim: more may be due; look again once there is room.
      if (rows.length === room) queue.backlog = true;
      // Room left: the next retry due (this instance's, or another's it gave back) is claimed when it is due.
      else soonest = Math.min(soonest, (await store.nextDue(queue.endpoint.url))?.getTime() ?? Infinity);
    }
    return soonest;
  }

  /** Runs a poll now (or right after the one running), then waits for the next due time. */
  function pollNow(): void {
    clearTimeout(pollTimer);
    wakeAt = Infinity;
    if (closed) return;
    if (polling) {
      pollAgain = true;
      return;
    }
    polling = poll()
      .catch((error: unknown) => {
        logger.warn('content-router: webhooks could not look for due deliveries (retrying):', error);
        return Infinity;
      })
      .then((due) => {
        polling = undefined;
        const soon = pollAgain;
        pollAgain = false;
        schedule(soon ? now() : Math.min(due, now() + POLL_MS));
      });
  }

  /** Makes sure a poll runs by `at`. */
  function schedule(at: number): void {
    if (closed || !started || at >= wakeAt) return;
    wakeAt = at;
    clearTimeout(pollTimer);
    pollTimer = setTimeout(pollNow, Math.max(0, at - now()));
    pollTimer.unref();
  }

  return {
    hasRoom: (endpoint) => !closed && held(queueOf(endpoint)) < QUEUE_ROOM,
    push(endpoint, rows) {
      const queue = queueOf(endpoint);
      queue.waiting.push(...rows);
      drain(queue);
    },
    start() {
      started = true;
      pollNow();
    },
    wake() {
      schedule(now());
    },
    backlog(url) {
      const queue = queues.get(url);
      if (queue) queue.backlog = true;
    },
    async close() {
      if (closed) return;
      closed = true;
      clearTimeout(pollTimer);
      clearInterval(renewTimer);
      const running = [...queues.values()].flatMap((queue) => [...queue.running.values()]);
      // Settled rows are no longer this instance's, so giving back every row it held touches only the rest.
      const heldIds = [...queues.values()].flatMap((queue) => [...queue.running.keys()]);
      let grace: NodeJS.Timeout | undefined;
      const finished = await Promise.race([
        Promise.all(running).then(() => true),
        new Promise<false>((resolve) => {
          grace = setTimeout(() => resolve(false), CLOSE_GRACE_MS);
          grace.unref();
        }),
      ]);
      clearTimeout(grace);
      if (!finished) closing.abort();
      await Promise.all([...running, polling]);
      while (writing || unwritten.length) await writeSettlements();
      for (const queue of queues.values()) heldIds.push(...queue.waiting.splice(0).map((row) => row._id));
      await store.release(heldIds).catch((error: unknown) =>
        logger.warn('content-router: webhooks could not give back their delivery leases on close (they run out by themselves):', error),
      );
    },
  };
}
