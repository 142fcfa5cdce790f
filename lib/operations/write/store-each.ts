// Storing the records of a multi-record write (batch create, bulk update, bulk delete): each record by its
// own conditional command (store.ts), which answers with what it stored, so every record is reported,
// hooked and published exactly once, by the request whose write changed it. The failure policy of this
// stage (docs/writes.md):
//   - where the server has transactions, all records are stored in one transaction, one after another (a
//     session runs one command at a time); any failure (a record another writer changed or deleted since
//     it was read, a unique value taken meanwhile) rolls all of them back and fails the request: a 409
//     naming the items;
//   - without transactions each record stands alone: the stores run a few at a time, and one that fails is
//     that record's 409 (reported in `errors`); the others are written.
// Each stored change passes the seam (changeStored) in the session that stored it.
import type { ClientSession } from 'mongoose';
import { ConflictError, ContentError, type ErrorDetail, ItemsFailedError, WriteConflictError, isErrorAnswer } from '../../errors';
import { assertUnanswered } from '../answered';
import type { OperationArgs } from '../runtime';
import { inTransaction, supportsTransactions } from './transaction';
import { type StoredChange, changeStored, publishChange } from './stored-change';

/** How many records are stored at once without a transaction: enough to hide the round trips, few enough to share the pool. */
const CONCURRENT_STORES = 8;

/** Where an item is in the client's terms: its record id (bulk writes by where) or its index (batch create). */
export type ItemName = { id: string } | { index: number };

/** One item's outcome: its stored change, or why it was not stored (a ContentError: its answer). */
export interface StoreOutcome {
  change?: StoredChange;
  failure?: ContentError;
}

/**
 * Stores every item with `store` (which throws a ContentError for a failure of that item alone: a
 * WriteConflictError, a ConflictError); answers each item's outcome, in item order. With transactions it
 * answers only when all were stored, and throws an ItemsFailedError otherwise. Any other error is thrown.
 */
export async function storeEach<T>(
  args: Pick<OperationArgs, 'runtime' | 'state' | 'req'>,
  items: readonly T[],
  name: (item: T, index: number) => ItemName,
  store: (item: T, session?: ClientSession) => Promise<StoredChange>,
  interrupted?: (stored: StoredChange[]) => Promise<void>,
): Promise<StoreOutcome[]> {
  if (items.length === 0) return [];
  assertUnanswered(args);
  const { runtime } = args;
  if (!(await supportsTransactions(runtime.connection))) return storeApart(args, items, store, interrupted);
  const outcomes = await inTransaction(runtime.connection, async (session) => {
    // The driver may run this again from the start on a transient error: nothing is kept from an attempt.
    const outcomes: StoreOutcome[] = [];
    const failed: ErrorDetail[] = [];
    for (const [index, item] of items.entries()) {
      try {
        const change = await store(item, session);
        await changeStored(args, change, session);
        outcomes.push({ change });
      } catch (error) {
        if (!isErrorAnswer(error) || !(error instanceof WriteConflictError || error instanceof ConflictError)) throw error;
        failed.push(...detailsOf(error, name(item, index)));
        // A write error (a unique value taken) ends the transaction on the server: nothing more can be stored.
        if (error instanceof ConflictError) break;
      }
    }
    if (failed.length) throw new ItemsFailedError(409, failed[0].code === 'unique' ? 'unique_conflict' : 'write_conflict', 'Some records could not be stored; nothing was written.', failed);
    return outcomes;
  });
  // Committed: on the bus at once, before any after-hook runs (see publishChange).
  for (const { change } of outcomes) if (change) publishChange(args, change);
  return outcomes;
}

/**
 * Without transactions: a few at a time, each record on its own. An unexpected failure (the database lost)
 * stops the stores not yet started; once the running ones are done, `interrupted` is told what was stored
 * (a batch create removes it again) and the failure is thrown.
 */
async function storeApart<T>(
  args: Pick<OperationArgs, 'runtime' | 'state' | 'req'>,
  items: readonly T[],
  store: (item: T) => Promise<StoredChange>,
  interrupted?: (stored: StoredChange[]) => Promise<void>,
): Promise<StoreOutcome[]> {
  const outcomes: Array<StoreOutcome | undefined> = new Array<StoreOutcome | undefined>(items.length);
  let next = 0;
  let fatal: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (next < items.length && !fatal) {
      const index = next++;
      try {
        const change = await store(items[index]);
        outcomes[index] = { change };
        await changeStored(args, change, undefined);
        // Each record stands alone: on the bus as soon as it is stored (see publishChange).
        publishChange(args, change);
      } catch (error) {
        if (isErrorAnswer(error) && !outcomes[index]) outcomes[index] = { failure: error };
        else fatal ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENT_STORES, items.length) }, worker));
  if (fatal) {
    await interrupted?.(outcomes.flatMap((outcome) => (outcome?.change ? [outcome.change] : [])));
    throw fatal.error;
  }
  // Without a fatal failure every item has its outcome.
  return outcomes.map((outcome) => outcome ?? {});
}

/** An item's failure as the details of a request-level error, named by id or index. */
export function detailsOf(error: ContentError, item: ItemName): ErrorDetail[] {
  if (error.errors?.length) return error.errors.map((detail) => ({ ...detail, index: undefined, ...item }));
  return [{ ...item, message: error.message, code: error.code }];
}

/** One item a multi-record write could not prepare, and why. */
export interface ItemFailure {
  item: ItemName;
  error: unknown;
}

/**
 * The prepare stage's verdict: when any item failed, the whole request fails and nothing is written (a
 * client's mistake is never a partial write). A failure that is not the client's (a hook's bug) is thrown
 * as it is: a 500. Client mistakes are one error naming every failing item.
 */
export function refuseFailedItems(failures: readonly ItemFailure[], what: string): void {
  if (failures.length === 0) return;
  const bug = failures.find(({ error }) => !isErrorAnswer(error));
  if (bug) throw bug.error;
  const errors = failures as ReadonlyArray<{ item: ItemName; error: ContentError }>;
  const statuses = new Set(errors.map(({ error }) => error.status));
  const codes = new Set(errors.map(({ error }) => error.code));
  const status = statuses.size === 1 ? errors[0].error.status : 400;
  const code = statuses.size === 1 && codes.size === 1 ? errors[0].error.code : 'invalid_items';
  const detail = errors.length === 1 ? `${errors[0].error.message} Nothing was ${what}.` : `${errors.length} of the records cannot be ${what}; nothing was ${what}.`;
  throw new ItemsFailedError(status, code, detail, errors.flatMap(({ item, error }) => detailsOf(error, item)));
}
