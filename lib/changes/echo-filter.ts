// Recognises the change stream's echo of a write this router already published locally, so a consumer of
// the change bus acts on each write once: realtime delivers its own writes at once (from the operation's
// rows) and the response cache drops what they made stale at once, and both take everyone else's writes
// from the stream. Each local write leaves one exact expectation of its echo, consumed when matched:
// a create, update, soft delete or restore is an insert or update carrying the updatedAt (and deletedAt)
// it wrote; a hard delete is the record's next `delete`, until the record is seen created again. So an
// echo is recognised while another writer's change to the same record, a delete above all, gets through.
import type { RawDoc } from '../schema/to-record';
import type { ChangeEvent, WriteStamps } from './change-bus';

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

/** A timestamp as compared: Dates by their milliseconds, a missing or null one as null. */
type Stamp = string | null;

/** What one local write of one record looks like on the stream. */
type Expectation =
  /** A hard delete: the record's next `delete`. */
  | { kind: 'removal'; expires: number }
  /** A create, update, soft delete or restore: an insert or update with these stamps (deletedAt on soft-delete collections). */
  | { kind: 'write'; updatedAt: string; deletedAt?: Stamp; expires: number };

/** The stamps an echo or a write shows; a key is absent when unknown (or not written, for a described update). */
interface Shown {
  updatedAt?: Stamp;
  deletedAt?: Stamp;
}

function stamp(value: unknown): Stamp {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return String(value.getTime());
  // Any other stored value compares by its JSON form: both sides of a comparison come through here.
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * What a create or update event shows of the write: the stamps it carries (they are the write's own),
 * else its row. Undefined when neither tells the record's updatedAt.
 */
function shown(event: ChangeEvent, row: RawDoc | undefined, softDelete: boolean): Shown | undefined {
  const stamps: WriteStamps | undefined = event.stamps;
  if (stamps) {
    const result: Shown = {};
    if ('updatedAt' in stamps) result.updatedAt = stamp(stamps.updatedAt);
    if ('deletedAt' in stamps) result.deletedAt = stamp(stamps.deletedAt);
    return result;
  }
  if (!row || row.updatedAt === undefined) return undefined;
  return softDelete ? { updatedAt: stamp(row.updatedAt), deletedAt: stamp(row.deletedAt) } : { updatedAt: stamp(row.updatedAt) };
}

/** A described update that did not set updatedAt is never this router's: every write of it moves updatedAt. */
function echoes(expected: Expectation, echo: Shown): boolean {
  if (expected.kind !== 'write' || echo.updatedAt === undefined || echo.updatedAt !== expected.updatedAt) return false;
  return echo.deletedAt === undefined || expected.deletedAt === undefined || echo.deletedAt === expected.deletedAt;
}

/** Remembered writes of records, each waiting to be matched once by the same write seen the other way. */
interface Ledger {
  remember(event: ChangeEvent, rows: ReadonlyMap<string, RawDoc>, softDelete: boolean): void;
  /** Whether the record's change matches a remembered write; that expectation is consumed. */
  matches(event: ChangeEvent, id: string, row: RawDoc | undefined, softDelete: boolean): boolean;
}

function createLedger(now: () => number): Ledger {
  /** By `slug:id`, in order of each record's last expectation (the oldest first). */
  const expected = new Map<string, Expectation[]>();
  let count = 0;

  const prune = (): void => {
    const time = now();
    for (const [key, list] of expected) {
      if (list[list.length - 1].expires > time && count <= MAX_REMEMBERED) break;
      count -= list.length;
      expected.delete(key);
    }
  };
  /** The record's expectations still waiting. */
  const pending = (key: string): Expectation[] => {
    const time = now();
    return (expected.get(key) ?? []).filter((item) => item.expires > time);
  };
  /** Stores the record's expectations; `last` moves it to the end (it has a new one). */
  const store = (key: string, list: Expectation[], last: boolean): void => {
    count += list.length - (expected.get(key)?.length ?? 0);
    if (last || list.length === 0) expected.delete(key);
    if (list.length > 0) expected.set(key, list);
  };
  /** A later write of the record, or an insert of it: its earlier hard delete's echo, if any, came before. */
  const withoutRemoval = (list: Expectation[]): Expectation[] => list.filter((item) => item.kind !== 'removal');

  return {
    remember(event, rows, softDelete) {
      prune();
      const expires = now() + ECHO_WINDOW_MS;
      for (const id of event.ids) {
        const key = `${event.slug}:${id}`;
        const list = withoutRemoval(pending(key));
        // A delete with stamps is a soft delete (an update on the stream); without, the record is gone.
        if (event.type === 'delete' && !event.stamps) list.push({ kind: 'removal', expires });
        else {
          const written = shown(event, rows.get(id), softDelete);
          const updatedAt = written?.updatedAt;
          if (typeof updatedAt === 'string') list.push({ kind: 'write', updatedAt, ...(written && 'deletedAt' in written ? { deletedAt: written.deletedAt } : {}), expires });
        }
        store(key, list, true);
      }
    },
    matches(event, id, row, softDelete) {
      prune();
      const key = `${event.slug}:${id}`;
      if (!expected.has(key)) return false;
      const list = pending(key);
      const seen = event.type === 'delete' && !event.stamps ? undefined : shown(event, row, softDelete);
      const index = event.type === 'delete' && !event.stamps ? list.findIndex((item) => item.kind === 'removal') : seen ? list.findIndex((item) => echoes(item, seen)) : -1;
      if (index >= 0) list.splice(index, 1);
      store(key, index < 0 && event.type === 'create' ? withoutRemoval(list) : list, false);
      return index >= 0;
    },
  };
}

/** The event without the records `known` says were seen already; undefined when none is left. */
function unseen(event: ChangeEvent, rows: ReadonlyMap<string, RawDoc>, softDelete: boolean, known: Ledger): ChangeEvent | undefined {
  const ids = event.ids.filter((id) => !known.matches(event, id, rows.get(id), softDelete));
  if (ids.length === 0) return undefined;
  return ids.length === event.ids.length ? event : { ...event, ids };
}

/**
 * Creates a filter; `now` is injectable for tests. Usually a local write is published before the stream
 * echoes it, but not always (a batch publishes its records once all are stored, and the stream may be
 * quicker): a stream event that was news is remembered too, and the local event of the same write, coming
 * after it, is then the repeat that is dropped.
 */
export function createEchoFilter(now: () => number = Date.now): EchoFilter {
  const local = createLedger(now);
  const streamed = createLedger(now);
  return {
    news(event, rows, softDelete) {
      if (event.ids.length === 0) return event;
      if (event.origin === 'local') {
        const fresh = unseen(event, rows, softDelete, streamed);
        if (fresh) local.remember(fresh, rows, softDelete);
        return fresh;
      }
      const fresh = unseen(event, rows, softDelete, local);
      if (fresh) streamed.remember(fresh, rows, softDelete);
      return fresh;
    },
  };
}
