// What the bulk writes by where share: the records a where selects (never more than core.api.maxBulk),
// how one record's failure at the store is reported in `errors`, and the answer's shape.
import { TooManyMatchesError, isErrorAnswer } from '../errors';
import type { WhereNode } from '../query/types';
import type { ApiRecord, RawDoc } from '../schema/to-record';
import { toLoggableError } from '../util/loggable-error';
import { noteRefusedWrite, writeAction } from './refused-write';
import type { WriteArgs } from './runtime';

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

/**
 * How one record's failure is reported: a ContentError as it would be answered; anything else a logged 500
 * without detail. A record refused on its own (another writer changed it first: 409) is told to the audit
 * log as a refused `operation` of that record, as a single write of it would have been.
 */
export function failureOf(args: WriteArgs, id: string, error: unknown, operation: 'update' | 'delete'): BulkFailure {
  noteRefusedWrite({ ...args, action: writeAction(args, operation), id }, error);
  if (isErrorAnswer(error)) {
    return { id, status: error.status, code: error.code, message: error.message };
  }
  args.runtime.config.logger.error(`content-router: a bulk write of "${args.collection.descriptor.slug}" failed on record ${id}:`, toLoggableError(error));
  return { id, status: 500, code: 'internal_error', message: 'The record could not be written.' };
}
