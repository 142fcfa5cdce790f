// The write pipeline: every stored change of a record passes these steps, in this order. The operations
// (create.ts, create-many.ts, update.ts, update-many.ts, delete.ts, delete-many.ts, globals.ts,
// upload-file.ts, delete-file.ts) are thin users: each says what its steps 1-2 are and calls the rest here.
//
//   1. prepare     access (checkAccess), field access, beforeValidate, ONE validation and cast of the final
//                  data, relationships, features' transforms, beforeChange (prepare-input.ts); deletes:
//                  beforeDelete. A client's mistake is a 4xx here, before anything is written.
//   2. precondition  If-Match compared with the record as the caller reads it (precondition.ts), and the
//                  revision read: the store holds only at it (store.ts atRevisionOf).
//   3. store       one conditional driver command per record (store.ts), which answers with what it stored:
//                  the "read back" is the write's own answer, never a prediction. Multi-record writes
//                  store each record so (store-each.ts), in one transaction where the server has them.
//   4. record      changeStored() (stored-change.ts), in the store's session: THE SEAM where versions and
//                  the audit log record the change (before/after, actor, fields) in the same transaction.
//   5. publish     after the commit, the change bus (caches, realtime, webhooks): publishChange().
//   6. after-hooks afterChange / afterDelete: their failure is logged, the write stands.
//   7. answer      the record through the read steps, presented once (write-answer.ts); its ETag is a hash
//                  of that same answer.
import type { ClientSession } from 'mongoose';
import type { DeleteHookArgs, HookRecord } from '../../config/hooks';
import { WriteConflictError } from '../../errors';
import type { ValidatedInput } from '../../schema/validate-input';
import type { ApiRecord, RawDoc } from '../../schema/to-record';
import { assertUnanswered } from '../answered';
import { reportAfterWrite } from '../after-error';
import { runAll } from '../hooks';
import type { CollectionRuntime, OperationArgs } from '../runtime';
import { inTransaction } from './transaction';
import { answerWrite } from '../write-answer';
import { atRevisionOf, deleteRecordAt, insertRecord, updateRecord } from './store';
import { type StoredChange, changeMadeBy, changeStored, publishChange, recordsChanges } from './stored-change';

/** The Mongo update of a prepared body (plus `extra` set); undefined when it changes nothing. */
export function changeOf(input: Pick<ValidatedInput, 'set' | 'unset'>, extra?: Record<string, unknown>): Record<string, unknown> | undefined {
  if (!extra && Object.keys(input.set).length === 0 && input.unset.length === 0) return undefined;
  const change: Record<string, unknown> = { $set: { ...input.set, ...extra } };
  if (input.unset.length) change.$unset = Object.fromEntries(input.unset.map((name) => [name, 1]));
  return change;
}

/**
 * Steps 3-4 of a single write: stores the change (`store`, which answers what it stored, or null when its
 * filter matched nothing) and records it at the seam. In a transaction when something records changes and
 * the server has transactions, so the record and its version/audit entry commit together.
 */
export async function storeOne(
  args: Pick<OperationArgs, 'runtime' | 'req'> & { collection: Pick<CollectionRuntime, 'descriptor' | 'versions'> },
  store: (session?: ClientSession) => Promise<StoredChange | null>,
): Promise<StoredChange | null> {
  assertUnanswered(args);
  const run = async (session?: ClientSession) => {
    const change = await store(session);
    if (change) await changeStored(args, change, session);
    return change;
  };
  return recordsChanges(args.runtime, args.collection) ? inTransaction(args.runtime.connection, run) : run();
}

/** Step 3 of a create: the record inserted, as stored. */
export async function storeCreate(args: OperationArgs, set: Record<string, unknown>, session?: ClientSession): Promise<StoredChange> {
  const after = await insertRecord(args.collection, set, session);
  return { collection: args.collection, type: 'create', operation: 'create', id: String(after._id), after, ...changeMadeBy(args) };
}

/** What an update stores: the prepared input, the record as read (when it was), and where it is written. */
export interface UpdatePlan {
  input: Pick<ValidatedInput, 'set' | 'unset'>;
  operation: 'update' | 'restore';
  /** The record as read: the write holds only at its revision, and it is the change's `before`. */
  stored?: RawDoc;
  /** Where the record is written (default: its id). Narrowed to `stored`'s revision when there is one. */
  filter?: Record<string, unknown>;
  /** Values set besides the input's (a restore's deletedAt). */
  extra?: Record<string, unknown>;
  /** Without a matching record: null (the caller tells 404 from 412), or this conflict message (bulk writes: a 409). */
  conflict?: string;
  session?: ClientSession;
  /** A global: created by the write when there is none yet. */
  upsert?: boolean;
}

/** Step 3 of an update: the change written (at the revision read, when one was), as stored. */
export async function storeUpdate(args: OperationArgs, plan: UpdatePlan & { conflict: string }): Promise<StoredChange>;
export async function storeUpdate(args: OperationArgs, plan: UpdatePlan): Promise<StoredChange | null>;
export async function storeUpdate(args: OperationArgs, plan: UpdatePlan): Promise<StoredChange | null> {
  const { stored, input } = plan;
  // eslint-disable-next-line @typescript-eslint/no-non-null-assertion -- a plan without a filter is one made from a record read
  const filter = plan.filter ?? { _id: stored!._id };
  // An empty change still writes (a global's first write creates it; updatedAt moves).
  const after = await updateRecord(args.collection, stored ? atRevisionOf(filter, stored) : filter, changeOf(input, plan.extra) ?? { $set: {} }, { session: plan.session, upsert: plan.upsert });
  if (!after) {
    if (plan.conflict) throw new WriteConflictError(plan.conflict);
    return null;
  }
  const fields = [...Object.keys(plan.extra ?? {}), ...Object.keys(input.set), ...input.unset];
  return { collection: args.collection, type: 'update', operation: plan.operation, id: String(after._id), ...(stored ? { before: stored } : {}), after, fields, ...changeMadeBy(args) };
}

/** Step 3 of a delete: the record removed (or soft-deleted at `softAt`), at the revision read when it was. */
export async function storeDelete(
  args: OperationArgs,
  plan: { filter?: Record<string, unknown>; stored?: RawDoc; softAt?: Date; conflict?: string; session?: ClientSession },
): Promise<StoredChange | null> {
  const { stored, softAt } = plan;
  // eslint-disable-next-line @typescript-eslint/no-non-null-assertion -- a plan without a filter is one made from a record read
  const filter = plan.filter ?? { _id: stored!._id };
  const done = await deleteRecordAt(args.collection, stored ? atRevisionOf(filter, stored) : filter, softAt, plan.session);
  if (!done) {
    if (plan.conflict) throw new WriteConflictError(plan.conflict);
    return null;
  }
  const { before, after } = done;
  return { collection: args.collection, type: 'delete', operation: 'delete', id: String(before._id), before, ...(after ? { after } : {}), ...(softAt ? { stamps: { updatedAt: softAt, deletedAt: softAt } } : {}), ...changeMadeBy(args) };
}

/**
 * Steps 5-7 of a create, update or restore: publish the stored change, run afterChange, answer the record
 * (presented once). `data` is the body as the before-hooks left it (afterChange's `data`).
 */
export async function answerStored<T extends object = ApiRecord>(
  args: OperationArgs,
  change: StoredChange,
  data: Record<string, unknown>,
  options: { shape?: (record: ApiRecord) => T; previousDoc?: HookRecord } = {},
): Promise<T> {
  publishChange(args, change);
  const { shape } = options;
  const previousDoc = options.previousDoc ?? (change.before && args.collection.serializeAll(change.before));
  const operation = change.operation === 'delete' ? 'update' : change.operation;
  // eslint-disable-next-line @typescript-eslint/no-non-null-assertion -- a create's or update's stored change always has the record as stored
  return answerWrite(args, operation, { row: change.after!, data, previousDoc }, shape);
}

/** Steps 5-6 of a delete: publish the stored change, run afterDelete with the record as it was deleted. */
export async function finishDelete(args: OperationArgs, change: StoredChange, hookArgs: DeleteHookArgs | undefined): Promise<void> {
  publishChange(args, change);
  const { afterDelete } = args.collection.descriptor.hooks;
  if (!hookArgs || afterDelete.length === 0) return;
  try {
    // eslint-disable-next-line @typescript-eslint/no-non-null-assertion -- a delete's stored change always has the record as it was
    await runAll(args.collection, 'hooks.afterDelete', afterDelete, { ...hookArgs, doc: args.collection.serializeAll(change.before!) });
  } catch (error) {
    await reportAfterWrite(args, 'delete', error);
  }
}
