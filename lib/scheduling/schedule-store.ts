// The scheduled actions of every router on one database, in one collection the router owns. A due action
// is claimed with a lease (`owner`, `leaseUntil`) by one atomic findOneAndUpdate, so of several instances
// polling at once exactly one runs it; an instance that dies while running one loses its lease when it runs
// out, and another runs the action again (publishing an unchanged copy writes nothing, so a rerun of a
// publish that had landed changes nothing). Statuses are kept: pending, done, failed (with a reason),
// cancelled. Every date is on the router's clock.
import { randomBytes } from 'node:crypto';
import { type ClientSession, type Connection, Types } from 'mongoose';
import type { AuthUser } from '../config/types';
import type { ScheduleAction, ScheduleStatus } from '../local/publish-api';
import type { Clock } from '../util/clock';

/** Not a valid collection slug (it has a dot), so it never collides with a configured collection. */
export const SCHEDULES_COLLECTION = 'content-router.schedules';

/** How long a claimed action is its claimer's: longer than any publish takes. */
export const LEASE_MS = 60_000;

export interface ScheduleRow {
  _id: Types.ObjectId;
  /** `collection` for a collection's record, `global` for a global. */
  kind: 'collection' | 'global';
  slug: string;
  /** The record's id (a global: its slug). */
  record: string;
  action: ScheduleAction;
  at: Date;
  /** The If-Match value the working copy must still match when the action runs, as given. */
  ifMatch?: string;
  status: ScheduleStatus;
  reason?: string;
  detail?: string;
  /**
   * Who scheduled it, as the access rules saw them then (a JSON copy of the user; null: anonymous), and
   * whether access was skipped (server code): the action runs as them, its rules asked again then.
   */
  by: { user: AuthUser | null; overrideAccess: boolean };
  createdAt: Date;
  finishedAt?: Date;
  owner?: string;
  leaseUntil?: Date;
}

export type NewSchedule = Pick<ScheduleRow, 'kind' | 'slug' | 'record' | 'action' | 'at' | 'ifMatch' | 'by'>;

/** What ended a run: done, or failed and why. */
export type Outcome = { status: 'done' } | { status: 'failed'; reason: string; detail: string };

export interface ScheduleStore {
  /** This instance's lease token. */
  readonly owner: string;
  add(row: NewSchedule): Promise<ScheduleRow>;
  /** A record's actions, newest first. */
  listFor(kind: ScheduleRow['kind'], slug: string, record: string): Promise<ScheduleRow[]>;
  /** The action `id` of the record, if it is one of its. */
  findFor(kind: ScheduleRow['kind'], slug: string, record: string, id: string): Promise<ScheduleRow | null>;
  /** Cancels a pending action nobody is running; answers it, or null when it is not such an action. */
  cancel(id: Types.ObjectId): Promise<ScheduleRow | null>;
  /** Cancels every pending action of a record deleted for good (reason `record_deleted`), in its delete's session. */
  cancelAllFor(kind: ScheduleRow['kind'], slug: string, record: string, session?: ClientSession): Promise<void>;
  /** Claims the most overdue pending action nobody holds, for this instance (one atomic write); null when none is due. */
  claimDue(): Promise<ScheduleRow | null>;
  /** Gives this instance's lease of an action up without a run: it is due to whoever polls next. */
  release(id: Types.ObjectId): Promise<void>;
  /** Ends a run this instance holds; false when its lease was lost meanwhile. */
  settle(id: Types.ObjectId, outcome: Outcome): Promise<boolean>;
  createIndexes(): Promise<void>;
}

export function createScheduleStore(connection: Connection, clock: Clock): ScheduleStore {
  const rows = () => connection.collection<ScheduleRow>(SCHEDULES_COLLECTION);
  const owner = randomBytes(12).toString('hex');
  /** Pending and held by nobody (no lease, or one that ran out). */
  const free = (now: Date) => ({ status: 'pending' as const, $or: [{ leaseUntil: { $exists: false } }, { leaseUntil: { $lte: now } }] });
  return {
    owner,
    async add(row) {
      const stored: ScheduleRow = { _id: new Types.ObjectId(), ...row, status: 'pending', createdAt: clock.now() };
      if (stored.ifMatch === undefined) delete stored.ifMatch;
      await rows().insertOne(stored);
      return stored;
    },
    listFor(kind, slug, record) {
      return rows().find({ kind, slug, record }).sort({ createdAt: -1, _id: -1 }).toArray();
    },
    findFor(kind, slug, record, id) {
      if (!Types.ObjectId.isValid(id) || !/^[0-9a-f]{24}$/i.test(id)) return Promise.resolve(null);
      return rows().findOne({ _id: new Types.ObjectId(id), kind, slug, record });
    },
    async cancel(id) {
      const now = clock.now();
      return rows().findOneAndUpdate({ _id: id, ...free(now) }, { $set: { status: 'cancelled', finishedAt: now }, $unset: { owner: '', leaseUntil: '' } }, { returnDocument: 'after' });
    },
    async cancelAllFor(kind, slug, record, session) {
      const now = clock.now();
      await rows().updateMany({ kind, slug, record, status: 'pending' }, { $set: { status: 'cancelled', finishedAt: now, reason: 'record_deleted' }, $unset: { owner: '', leaseUntil: '' } }, { session });
    },
    async claimDue() {
      const now = clock.now();
      return rows().findOneAndUpdate({ ...free(now), at: { $lte: now } }, { $set: { owner, leaseUntil: new Date(now.getTime() + LEASE_MS) } }, { sort: { at: 1 }, returnDocument: 'after' });
    },
    async release(id) {
      await rows().updateOne({ _id: id, owner, status: 'pending' }, { $unset: { owner: '', leaseUntil: '' } });
    },
    async settle(id, outcome) {
      const result = await rows().updateOne({ _id: id, owner, status: 'pending' }, { $set: { ...outcome, finishedAt: clock.now() }, $unset: { owner: '', leaseUntil: '' } });
      return result.matchedCount === 1;
    },
    async createIndexes() {
      await rows().createIndexes([{ key: { status: 1, at: 1 } }, { key: { kind: 1, slug: 1, record: 1, createdAt: -1 } }]);
    },
  };
}
