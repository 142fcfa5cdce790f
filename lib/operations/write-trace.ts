// Whether a request wrote anything: what an Idempotency-Key keeps depends on it (a request that wrote
// nothing leaves nothing to protect, so nothing of it is kept). A trace follows the route's handler through
// every await (AsyncLocalStorage), so a write made anywhere under it is noted without being handed the
// request: a REST operation, a hook, a custom endpoint's req.context or api.local call.
import { AsyncLocalStorage } from 'node:async_hooks';

/** What one request has done so far. */
export interface WriteTrace {
  /** True once a write was published, or once the route may have written where the router cannot see (noteWrite). */
  wrote: boolean;
}

const traces = new AsyncLocalStorage<WriteTrace>();

/** Runs `work` (a route's handler) with `trace` noting its writes. */
export function traceWrites<T>(trace: WriteTrace, work: () => T): T {
  return traces.run(trace, work);
}

/**
 * Notes a write of the request being traced, if any: publishWrite calls it for every write the router makes,
 * and code handing a route a way to write past the router (an object endpoint's `db`) calls it as it does.
 */
export function noteWrite(): void {
  const trace = traces.getStore();
  if (trace) trace.wrote = true;
}
