// The idempotency check runs before the request's own deadline starts (its preHandler precedes the core's),
// and settling a key may outlive it: each of their database waits is bounded by the same limit, so a
// database that never answers cannot hold a keyed request forever.
import { DatabaseTimeoutError } from '../errors';

/** Settles like `call`, or rejects with a 503 `database_timeout` after `ms` (never with `false`). */
export function within<T>(ms: number | false, call: Promise<T>): Promise<T> {
  if (ms === false) return call;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new DatabaseTimeoutError(ms)), ms);
    timer.unref();
  });
  return Promise.race([call, timeout]).finally(() => clearTimeout(timer));
}
