// What the bulk writes by where share: the records a where selects (never more than core.api.maxBulk),
// how one record's failure is reported without failing the others, and the answer's shape.
import type { ClientSession } from 'mongoose';
import { TooManyMatchesError, WriteConflictError, isErrorAnswer } from '../errors';
import type { WhereNode } from '../query/types';
import type { ApiRecord, RawDoc } from '../schema/to-record';
import { toLoggableError } from '../util/loggable-error';
import type { WriteArgs } from './runtime';
import { inTransaction } from './transaction';
import { atRevision } from '../schema/revision';

export interface BulkArgs extends WriteArgs {
  /** The client's where (already parsed in its field view); undefined: every record (`where={}`). */
  where: WhereNode | undefined;
  /** Count the records the write would touch and write nothing. */
  dryRun?: boolean;
}

/** One record the bulk write could not write, and why (as a single write would have answered). */
export interface BulkFailure {
  id: string;
  status: number;
  code: string;
  message: string;
}

export interface BulkResult {
  /** The records as written (deletes: their ids). */
  data: Array<ApiRecord | { id: string }>;
  meta: { matched: number; updated?: number; deleted?: number; failed?: number };
  errors?: BulkFailure[];
}

/** The rows `filter` matches, oldest first; a 400 when there are more than a bulk write may write. */
export async function selectRows(args: WriteArgs, filter: Record<string, unknown>): Promise<RawDoc[]> {
  const most = args.runtime.config.maxBulk;
  const rows = await args.collection.model.find(filter).sort({ _id: 1 }).limit(most + 1).lean<RawDoc[]>();
  if (rows.length > most) throw new TooManyMatchesError(most);
  return rows;
}

/** The answer of a dry run: how many records the write would touch. */
export function dryRunAnswer(matched: number): BulkResult {
  return { data: [], meta: { matched } };
}

/** How one record's failure is reported: a ContentError as it would be answered; anything else a logged 500 without detail. */
export function failureOf(args: WriteArgs, id: string, error: unknown): BulkFailure {
  if (isErrorAnswer(error)) {
    return { id, status: error.status, code: error.code, message: error.message };
  }
  args.runtime.config.logger.error(`content-router: a bulk write of "${args.collection.descriptor.slug}" failed on record ${id}:`, toLoggableError(error));
  return { id, status: 500, code: 'internal_error', message: 'The record could not be written.' };
}

/** A selected record on its way to its write: as stored, and why it was not written (when it was not). */
export interface BulkItem {
  stored: RawDoc;
  failure?: unknown;
}

/** Items written by one filter: those read at one revision (and given one change), the filter naming their ids at it. */
export interface RevisionGroup<T extends BulkItem> {
  filter: Record<string, unknown>;
  items: T[];
}

/**
 * The items grouped by the revision they were read at and by `sameWrite` (items with the same key get the
 * same write), each group's filter naming its ids at that revision: a record is written only if still at
 * the revision read. Such a record is unchanged since it was selected, so it still matches the where and
 * the rule as they were checked.
 */
export function atRevisions<T extends BulkItem>(items: readonly T[], sameWrite: (item: T) => string = () => ''): Array<RevisionGroup<T>> {
  const groups = new Map<string, { rev: number | undefined; items: T[] }>();
  for (const item of items) {
    const rev = typeof item.stored._rev === 'number' ? item.stored._rev : undefined;
    const key = `${String(rev)} ${sameWrite(item)}`;
    const group = groups.get(key) ?? { rev, items: [] };
    group.items.push(item);
    groups.set(key, group);
  }
  return [...groups.values()].map(({ rev, items: members }) => ({ filter: { _id: { $in: members.map((item) => item.stored._id) }, ...atRevision(rev) }, items: members }));
}

/**
 * Writes the items in one database command or a few, in one transaction where the server has them (the
 * driver may run it again from the start, so each attempt starts the items afresh). `write` answers how many
 * records the database matched. When that is every item without a failure of its own, each was written.
 * When it is fewer, another writer moved some of them between the selection and the write: the items are
 * read back, and `holds` tells, for each, whether the record as it is now holds its change; one that does
 * not is a 409 of its own. (Without transactions, a record written and then changed again by another
 * writer before the read-back is reported as not written: docs/writes.md says so.)
 */
export function writeAll<T extends BulkItem>(
  args: WriteArgs,
  items: T[],
  write: (session?: ClientSession) => Promise<number>,
  holds: (item: T, now: RawDoc | undefined) => boolean,
  conflict: string,
): Promise<void> {
  return inTransaction(args.runtime.connection, async (session) => {
    for (const item of items) item.failure = undefined;
    const matched = await write(session);
    const pending = items.filter((item) => item.failure === undefined);
    if (matched >= pending.length) return;
    const rows = await args.collection.model.find({ _id: { $in: pending.map((item) => item.stored._id) } }, undefined, { session }).lean<RawDoc[]>();
    const now = new Map(rows.map((row) => [String(row._id), row]));
    for (const item of pending) {
      if (!holds(item, now.get(String(item.stored._id)))) item.failure = new WriteConflictError(conflict);
    }
  });
}
