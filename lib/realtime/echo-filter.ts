// Recognises the change stream's echo of a write this router already published locally, so realtime
// can deliver its own writes at once (from the operation's rows) and still take everyone else's from the
// stream, each write exactly once. A write is identified by record and version (its updatedAt), so an
// echo is dropped while another writer's change to the same record still gets through.
import type { ChangeEvent } from '../operations/change-bus';
import type { RawDoc } from '../schema/to-record';

/** How long a local write waits for its echo; echoes come within milliseconds to seconds. */
const ECHO_WINDOW_MS = 60_000;
/** Most remembered writes: a bound on memory whatever the write rate. */
const MAX_REMEMBERED = 20_000;

export interface EchoFilter {
  /** Remembers the writes of a local event. */
  remember(change: ChangeEvent, rows: ReadonlyMap<string, RawDoc>, softDelete: boolean): void;
  /** The ids of a stream event that are not echoes of remembered local writes. */
  unseen(change: ChangeEvent, rows: ReadonlyMap<string, RawDoc>, softDelete: boolean): string[];
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
  return {
    remember(change, rows, softDelete) {
      prune();
      for (const id of change.ids) {
        const key = writeKey(change, id, rows.get(id), softDelete);
        if (key === undefined) continue;
        seen.delete(key);
        seen.set(key, now() + ECHO_WINDOW_MS);
      }
    },
    unseen(change, rows, softDelete) {
      prune();
      return change.ids.filter((id) => {
        const key = writeKey(change, id, rows.get(id), softDelete);
        if (key === undefined || !seen.has(key)) return true;
        seen.delete(key);
        return false;
      });
    },
  };
}
