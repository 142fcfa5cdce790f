// What the bulk writes by where share: the records a where selects (never more than core.api.maxBulk),
// how one record's failure is reported without failing the others, and the answer's shape.
import type { ClientSession } from 'mongoose';
import { ContentError, TooManyMatchesError, WriteConflictError } from '../errors';
import type { WhereNode } from '../query/types';
import type { ApiRecord, RawDoc } from '../schema/to-record';
import { toLoggableError } from '../util/loggable-error';
import type { WriteArgs } from './runtime';
import { inTransaction } from './transaction';

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

/** Records written at once when the server has no transactions: enough to hide the round trips, few enough to leave the pool to others. */
const WRITES_IN_FLIGHT = 8;

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
  if (error instanceof ContentError && error.status >= 400 && error.status <= 599) {
    return { id, status: error.status, code: error.code, message: error.message };
  }
  args.runtime.config.logger.error(`content-router: a bulk write of "${args.collection.descriptor.slug}" failed on record ${id}:`, toLoggableError(error));
  return { id, status: 500, code: 'internal_error', message: 'The record could not be written.' };
}

/**
 * Writes every item with `writeOne` and returns those that failed, with why. Where the server has
 * transactions, all in one, one after another (a session runs one operation at a time): a record that moved
 * since it was read (WriteConflictError) is reported, any other failure undoes them all and is thrown. The
 * driver may run a transaction again from the start, so each attempt keeps its own outcome. Without
 * transactions, a few at a time, each failing alone.
 */
export function writeEach<T>(args: WriteArgs, items: readonly T[], writeOne: (item: T, session?: ClientSession) => Promise<void>): Promise<Array<[T, unknown]>> {
  return inTransaction(args.runtime.connection, async (session) => {
    const failed: Array<[T, unknown]> = [];
    const each = async (item: T) => {
      try {
        await writeOne(item, session);
      } catch (error) {
        if (session && !(error instanceof WriteConflictError)) throw error;
        failed.push([item, error]);
      }
    };
    if (session) for (const item of items) await each(item);
    else await inBatches(items, WRITES_IN_FLIGHT, each);
    return failed;
  });
}

/** Runs `each` over `items`, at most `width` at once; the results in item order. */
async function inBatches<T, R>(items: readonly T[], width: number, each: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await each(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  return results;
}
