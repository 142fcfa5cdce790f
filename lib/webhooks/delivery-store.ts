// The deliveries of every router on one database, in one collection: a row per (event, endpoint), recorded
// before any attempt under a unique index, so instances recording the same change agree on one row (a
// duplicate-key insert means another recorded it). A row is claimed with a lease (`owner`, `leaseUntil`)
// for as long as one instance works on it; a crashed instance's lease runs out and another takes it over.
// Rows expire `retention` after their creation (a TTL index; every read treats an expired row as gone).
// Beside them, the position each watched collection's stream reached, so a restart resumes from there.
import { randomBytes } from 'node:crypto';
import { type Connection, Types } from 'mongoose';
import { isDuplicateKeyError } from '../operations/write-errors';
import type { Clock } from '../util/clock';

/** Not a valid collection slug (it has a dot), so it never collides with a configured collection. */
export const DELIVERIES_COLLECTION = 'content-router.webhook-deliveries';
/** Where each watched collection's stream position is kept. */
export const CURSORS_COLLECTION = 'content-router.webhook-cursors';

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';
export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'delivered', 'failed'];

/** One attempt as the delivery log keeps it. */
export interface AttemptRow {
  at: Date;
  /** The receiver's HTTP status, when it answered. */
  status?: number;
  /** Why the attempt failed, when it did (a timeout, a refused connection, a status that is not 2xx). */
  error?: string;
  durationMs: number;
  /** The start of the receiver's answer, truncated. */
  response?: string;
}

export interface DeliveryRow {
  /** The `webhook-id`: the same on every attempt. */
  _id: string;
  /** The change: its collection and the stream's resume token; unique with `endpoint`. */
  event: string;
  endpoint: string;
  type: string;
  collection: string;
  recordId: string;
  /**
   * The body, exactly as every attempt sends it. Absent when it could not be built (a read hook failed): such
   * a row is recorded failed, with an attempt saying why, and is never sent.
   */
  payload?: string;
  status: DeliveryStatus;
  attempts: AttemptRow[];
  /** Failed attempts of the current schedule: which retry delay comes next. */
  tries: number;
  nextAttemptAt: Date;
  /** The instance working on it, and until when (absent when nobody is). */
  owner?: string;
  leaseUntil?: Date;
  /** Which claim of the owner's took it (rows claimed together share one). */
  claim?: string;
  createdAt: Date;
  expiresAt: Date;
}

/** A row to record: everything but what the store sets; with `unbuilt` (why its body could not be built) instead of a body, recorded failed. */
export type NewDelivery = Pick<DeliveryRow, 'event' | 'endpoint' | 'type' | 'collection' | 'recordId'> & ({ payload: string } | { unbuilt: string });

/** What an attempt's end writes: the attempt, and what follows it. */
export type Settlement = { attempt: AttemptRow } & ({ status: 'delivered' } | { status: 'pending'; nextAttemptAt: Date } | { status: 'failed' });

export interface DeliveryFilter {
  status?: DeliveryStatus;
  endpoint?: string;
}

export interface DeliveryStore {
  /** This instance's lease token. */
  readonly owner: string;
  /**
   * Records the rows (one write); those another instance recorded first are left out of the answer. `lease`:
   * the new rows with a body are this instance's until then, to attempt at once.
   */
  record(rows: readonly NewDelivery[], lease: Date | undefined): Promise<DeliveryRow[]>;
  /**
   * Claims up to `limit` due pending rows of `endpoint` whose lease is free, the most overdue first, until
   * `lease` (three indexed round trips however many): each row is claimed by one instance only.
   */
  claim(endpoint: string, lease: Date, limit: number): Promise<DeliveryRow[]>;
  /** When the soonest pending row of `endpoint` that nobody holds is due (undefined when there is none): when to claim next. */
  nextDue(endpoint: string): Promise<Date | undefined>;
  /** Extends this instance's leases of `ids`. */
  renew(ids: readonly string[], lease: Date): Promise<void>;
  /**
   * Ends attempts of rows this instance holds, in one write; answers how many it still held (fewer when a
   * lease was lost meanwhile and another instance took the row over).
   */
  settle(settlements: ReadonlyArray<{ id: string; settlement: Settlement }>): Promise<number>;
  /** Gives this instance's leases of `ids` up without an attempt: the rows are due to whoever polls first. */
  release(ids: readonly string[]): Promise<void>;
  /** A page of rows, newest first, and the total. */
  list(filter: DeliveryFilter, page: number, limit: number): Promise<{ rows: DeliveryRow[]; total: number }>;
  /**
   * Queues a failed or delivered row again for one more attempt (`tries` then at `lastTry`); answers the row and
   * whether it was queued now (not a pending one, queued already, nor one without a body, which cannot be
   * sent), or undefined when there is none.
   */
  requeue(id: string, lastTry: number): Promise<{ row: DeliveryRow; requeued: boolean } | undefined>;
  /** The stream position kept for a collection. */
  position(collectionName: string): Promise<{ token: unknown; at: Date } | undefined>;
  /** Keeps a collection's stream position. */
  keepPosition(collectionName: string, token: unknown, at: Date): Promise<void>;
  createIndexes(): Promise<void>;
}

interface CursorRow {
  _id: string;
  token: unknown;
  at: Date;
}

/** Indexes of the rows a write failed on (a duplicate key: recorded by someone else); rethrows any other failure. */
function duplicateIndexes(error: unknown): Set<number> {
  // (The cast reads one field of a value of unknown type; the field is checked before use.)
  const writeErrors = (error as { writeErrors?: unknown }).writeErrors;
  const list = Array.isArray(writeErrors) ? writeErrors : writeErrors ? [writeErrors] : [];
  if (list.length === 0 && isDuplicateKeyError(error)) return new Set([0]);
  if (list.length === 0 || !list.every((e: { code?: number }) => e.code === 11000)) throw error;
  return new Set(list.map((e: { index: number }) => e.index));
}

/** `clock`: the router's; every lease, due time and retention date is in its time. */
export function createDeliveryStore(connection: Connection, retentionMs: number, clock: Clock): DeliveryStore {
  const rows = () => connection.collection<DeliveryRow>(DELIVERIES_COLLECTION);
  const cursors = () => connection.collection<CursorRow>(CURSORS_COLLECTION);
  const owner = randomBytes(12).toString('hex');
  const live = (now = clock.now()) => ({ expiresAt: { $gt: now } });
  /** Pending rows of `endpoint` nobody holds (no lease, or one that ran out): for whoever claims them first. */
  const unheld = (endpoint: string, now: Date) => ({ endpoint, status: 'pending' as const, $or: [{ leaseUntil: { $exists: false } }, { leaseUntil: { $lte: now } }], ...live(now) });

  return {
    owner,
    async record(list, lease) {
      if (list.length === 0) return [];
      const now = clock.now();
      const fresh = list.map((row): DeliveryRow => {
        const common = { _id: `msg_${new Types.ObjectId().toHexString()}`, event: row.event, endpoint: row.endpoint, type: row.type, collection: row.collection, recordId: row.recordId };
        const kept = { tries: 0, nextAttemptAt: now, createdAt: now, expiresAt: new Date(now.getTime() + retentionMs) };
        if ('unbuilt' in row) return { ...common, status: 'failed', attempts: [{ at: now, error: row.unbuilt, durationMs: 0 }], ...kept };
        return { ...common, payload: row.payload, status: 'pending', attempts: [], ...kept, ...(lease ? { owner, leaseUntil: lease } : {}) };
      });
      try {
        await rows().insertMany(fresh, { ordered: false });
        return fresh;
      } catch (error) {
        const taken = duplicateIndexes(error);
        return fresh.filter((_, index) => !taken.has(index));
      }
    },
    async claim(endpoint, lease, limit) {
      const now = clock.now();
      const free = { ...unheld(endpoint, now), nextAttemptAt: { $lte: now } };
      const candidates = await rows().find(free, { projection: { _id: 1 } }).sort({ nextAttemptAt: 1 }).limit(limit).toArray();
      if (candidates.length === 0) return [];
      // The filter is checked again row by row as each is written: a row another instance claimed meanwhile is left out.
      const claim = randomBytes(8).toString('hex');
      await rows().updateMany({ ...free, _id: { $in: candidates.map((c) => c._id) } }, { $set: { owner, leaseUntil: lease, claim } });
      return rows().find({ _id: { $in: candidates.map((c) => c._id) }, owner, claim }).sort({ nextAttemptAt: 1 }).toArray();
    },
    async nextDue(endpoint) {
      const found = await rows().find(unheld(endpoint, clock.now()), { projection: { nextAttemptAt: 1 } }).sort({ nextAttemptAt: 1 }).limit(1).toArray();
      return found.at(0)?.nextAttemptAt;
    },
    async renew(ids, lease) {
      if (ids.length) await rows().updateMany({ _id: { $in: [...ids] }, owner }, { $set: { leaseUntil: lease } });
    },
    async settle(settlements) {
      if (settlements.length === 0) return 0;
      const result = await rows().bulkWrite(
        settlements.map(({ id, settlement: { attempt, ...next } }) => ({
          updateOne: {
            filter: { _id: id, owner },
            update: {
              $push: { attempts: attempt },
              $set: next.status === 'pending' ? { status: next.status, nextAttemptAt: next.nextAttemptAt } : { status: next.status },
              $inc: { tries: next.status === 'delivered' ? 0 : 1 },
              $unset: { owner: '', leaseUntil: '', claim: '' },
            },
          },
        })),
        { ordered: false },
      );
      return result.matchedCount;
    },
    async release(ids) {
      if (ids.length) await rows().updateMany({ _id: { $in: [...ids] }, owner }, { $unset: { owner: '', leaseUntil: '', claim: '' } });
    },
    async list(filter, page, limit) {
      const query = { ...live(), ...(filter.status ? { status: filter.status } : {}), ...(filter.endpoint ? { endpoint: filter.endpoint } : {}) };
      const [found, total] = await Promise.all([
        rows()
          .find(query, { projection: { payload: 0 } })
          .sort({ createdAt: -1, _id: -1 })
          .skip((page - 1) * limit)
          .limit(limit)
          .toArray(),
        rows().countDocuments(query),
      ]);
      return { rows: found, total };
    },
    async requeue(id, lastTry) {
      const now = clock.now();
      const row = await rows().findOneAndUpdate(
        { _id: id, status: { $in: ['failed', 'delivered'] }, payload: { $exists: true }, ...live(now) },
        { $set: { status: 'pending', nextAttemptAt: now, tries: lastTry }, $unset: { owner: '', leaseUntil: '', claim: '' } },
        { returnDocument: 'after', projection: { payload: 0 } },
      );
      if (row) return { row, requeued: true };
      const found = await rows().findOne({ _id: id, ...live(now) }, { projection: { payload: 0 } });
      return found ? { row: found, requeued: false } : undefined;
    },
    async position(collectionName) {
      const row = await cursors().findOne({ _id: collectionName });
      return row ? { token: row.token, at: row.at } : undefined;
    },
    async keepPosition(collectionName, token, at) {
      await cursors().updateOne({ _id: collectionName }, { $set: { token, at } }, { upsert: true });
    },
    async createIndexes() {
      await rows().createIndexes([
        { key: { event: 1, endpoint: 1 }, unique: true },
        { key: { endpoint: 1, status: 1, nextAttemptAt: 1 } },
        { key: { createdAt: -1 } },
        { key: { expiresAt: 1 }, expireAfterSeconds: 0 },
      ]);
    },
  };
}
