// Recognises the change stream's echo of a write this router already published locally, so a consumer of
// the change bus acts on each write once: realtime delivers its own writes at once (from the operation's
// rows) and the response cache drops what they made stale at once, and both take everyone else's writes
// from the stream. A write is identified by record and version (its updatedAt), so an echo is recognised
// while another writer's change to the same record still gets through.
import type { RawDoc } from '../schema/to-record';
import type { ChangeEvent } from './change-bus';

/** How long a local write waits for its echo; echoes come within milliseconds to seconds. */
const ECHO_WINDOW_MS = 60_000;
/** Most remembered writes: a bound on memory whatever the write rate. */
const MAX_REMEMBERED = 20_000;

/** One per consumer: each remembers the local events it saw and consumes their echoes itself. */
export interface EchoFilter {
  /**
   * `event` as far as it is news to the consumer: a local event whole (its writes are remembered); a stream
   * event without the records whose change echoes a remembered local write, or undefined when none is left.
   * A stream event without ids passes as it is: nothing tells whose write it was. `rows` are the event's
   * documents by id (rowsById).
   */
  news(event: ChangeEvent, rows: ReadonlyMap<string, RawDoc>, softDelete: boolean): ChangeEvent | undefined;
}

function version(value: unknown): string {
  return value instanceof Date ? String(value.getTime()) : String(value);
}

/**
 * The write's identity: deletes (and soft deletes, which the stream sees as an update setting deletedAt)
 * by record, creates and updates by record and updatedAt. Undefined when the row is unknown.
 */
function writeKey(change: ChangeEvent, id: string, row: RawDoc | undefined, softDelete: boolean): string | undefined {
  const deleted = change.type === 'delete' || (softDelete && row !== undefined && row.deletedAt !== null && row.deletedAt !== undefined);
  if (deleted) return `${change.slug}:${id}:delete`;
  if (!row || row.updatedAt === undefined) return undefined;
  return `${change.slug}:${id}:${version(row.updatedAt)}`;
}

/** Creates a filter; `now` is injectable for tests. */
export function createEchoFilter(now: () => number = Date.now): EchoFilter {
  const seen = new Map<string, number>();
  const prune = () => {
    const time = now();
    for (const [key, expires] of seen) {
      // Insertion order is expiry order: stop at the first live entry.
      if (expires > time && seen.size <= MAX_REMEMBERED) break;
      seen.delete(key);
    }
  };
  const remember = (event: ChangeEvent, rows: ReadonlyMap<string, RawDoc>, softDelete: boolean): void => {
    for (const id of event.ids) {
      const key = writeKey(event, id, rows.get(id), softDelete);
      if (key === undefined) continue;
      seen.delete(key);
      seen.set(key, now() + ECHO_WINDOW_MS);
    }
  };
  /** An id is unseen unless its write is remembered; a remembered write has one echo, so it is forgotten then. */
  const unseen = (event: ChangeEvent, rows: ReadonlyMap<string, RawDoc>, softDelete: boolean): string[] =>
    event.ids.filter((id) => {
      const key = writeKey(event, id, rows.get(id), softDelete);
      if (key === undefined || !seen.has(key)) return true;
      seen.delete(key);
      return false;
    });
  return {
    news(event, rows, softDelete) {
      prune();
      if (event.origin === 'local') {
        remember(event, rows, softDelete);
        return event;
      }
      if (event.ids.length === 0) return event;
      const ids = unseen(event, rows, softDelete);
      if (ids.length === 0) return undefined;
      return ids.length === event.ids.length ? event : { ...event, ids };
    },
  };
}
