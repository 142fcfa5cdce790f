// Batch create (POST /<slug> with { data: [...] }), a user of the write pipeline with the multi-record
// failure policy (docs/writes.md):
//   1. prepare every item: access, field access, before-hooks, validation and cast, relationships, unique
//      values within the batch and against the database, the create rule's constraint on each record as
//      it would be stored. Any failure fails the whole batch (a 4xx naming each failing item by index),
//      nothing written;
//   2. store each item (write/store-each.ts): in one transaction where the server has them (a failure
//      there, such as a unique value taken meanwhile, rolls all back: a 409 naming the items); else each
//      on its own, one that fails being reported in `errors` as its 409 while the others are created;
//   3. for each item stored: its change event, afterChange and the read steps, in item order.
import { Types } from 'mongoose';
import { type ErrorDetail, ItemsFailedError, ValidationError } from '../errors';
import type { ApiRecord } from '../schema/to-record';
import { assertValidInput } from '../schema/validate-input';
import { assertWithinConstraints } from './constraint-match';
import { hasBeforeWriteHooks } from './hooks';
import { withAfterError } from './after-error';
import { noteRefusedWrite, writeAction } from './refused-write';
import { type PreparedWrite, bodyOf, prepareWrite } from './prepare-input';
import { findMissingRelations } from './check-relations';
import type { WriteArgs } from './runtime';
import { answerStored, storeCreate } from './write/pipeline';
import { recordToInsert, removeRecordsEventually } from './write/store';
import { type StoredChange, changeStored, publishChange } from './write/stored-change';
import { type ItemFailure, refuseFailedItems, storeEach } from './write/store-each';
import { uniqueValueFailures } from './write/unique-values';
import { checkWriteAccess } from './drafts/publish-access';

export interface CreateManyArgs extends WriteArgs {
  items: unknown;
}

/** One item the batch could not store (only without transactions), as a single create would have answered. */
export interface BatchFailure {
  index: number;
  status: number;
  code: string;
  message: string;
}

/** What a batch create stored: the records in item order, and the items that failed at the store. */
export interface BatchResult {
  data: ApiRecord[];
  errors: BatchFailure[];
}

async function inTurn<T, R>(items: readonly T[], work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (const item of items) results.push(await work(item));
  return results;
}

/** Creates every item (see the file's head for what happens when one fails). */
export function createBatch(args: CreateManyArgs): Promise<BatchResult> {
  return withAfterError(args, 'create', () => createAll(args));
}

/**
 * Creates every item; returns the records in input order. Where an item could not be stored without
 * transactions (another writer took its unique value meanwhile), throws the 409 naming it after storing
 * the others (ItemsFailedError; `createBatch` answers both instead).
 */
export async function createMany(args: CreateManyArgs): Promise<ApiRecord[]> {
  const { data, errors } = await createBatch(args);
  if (errors.length) {
    const detail = `${errors.length} of the records could not be stored; the other ${data.length} were created.`;
    throw new ItemsFailedError(409, errors[0].code, detail, errors.map(({ index, code, message }) => ({ index, code, message })));
  }
  return data;
}

async function createAll(args: CreateManyArgs): Promise<BatchResult> {
  const { collection } = args;
  const items = args.items;
  const max = collection.descriptor.maxBatchSize;
  if (!Array.isArray(items) || items.length === 0) {
    throw new ValidationError('data must be a non-empty array of records.', [{ field: 'data', message: 'must be a non-empty array', code: 'invalid_type' }]);
  }
  if (items.length > max) {
    throw new ValidationError(`A batch may hold at most ${max} records.`, [{ field: 'data', message: `at most ${max} items`, code: 'too_many' }]);
  }
  // 1. Prepare every item; any failure fails the batch, nothing written.
  const constraints = await Promise.all(items.map((item) => checkWriteAccess({ ...args, op: 'create', data: bodyOf(item) })));
  const prepare = (item: unknown) => prepareWrite(args, item, { mode: 'create', operation: 'create', checkRelations: false });
  // With hooks, one item after another: they share the request's context and see the items in the client's
  // order. Without, together: a password hash per item runs on the thread pool.
  const prepared: PreparedWrite[] = hasBeforeWriteHooks(collection) ? await inTurn(items, prepare) : await Promise.all(items.map(prepare));
  const invalid: ErrorDetail[] = prepared.flatMap((ready, index) => ready.input.errors.map((error) => ({ ...error, index })));
  const sets = prepared.map((ready) => ready.input.set);
  if (invalid.length === 0) invalid.push(...(await findMissingRelations(args, sets, true)));
  invalid.sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
  assertValidInput(invalid, 'Some records are not valid; nothing was created.');
  const failures: ItemFailure[] = await uniqueValueFailures(collection, sets.map((set, index) => ({ item: { index }, set })));
  refuseFailedItems(failures, 'created');
  await assertWithinConstraints(args, sets.map((set, index) => ({ doc: recordToInsert(collection, set), constraint: constraints[index] })));

  // 2. Store each item, each with its id chosen here: the batch's records are known by id before any lands.
  // Without transactions, a batch the database failed part-way (an outage) is undone by those ids: what was
  // stored, and what may have landed though its reply was lost. While the database is away the removal is
  // tried again in the background (docs/operations.md): once it is back, no half of the batch remains.
  // What was stored was told (the seam, the bus) as it was stored: its removal is told as deletes.
  const ids = sets.map(() => new Types.ObjectId());
  const undo = async (stored: StoredChange[]) => {
    await removeRecordsEventually(collection, ids, async () => {
      for (const change of stored) {
        const removed: StoredChange = { collection: change.collection, type: 'delete', operation: 'delete', id: change.id, before: change.after, actor: change.actor, origin: change.origin };
        await changeStored(args, removed, undefined).catch(() => undefined);
        publishChange(args, removed);
      }
    });
  };
  const outcomes = await storeEach(args, sets.map((set, index) => ({ set, index })), ({ index }) => ({ index }), ({ set, index }, session) => storeCreate(args, { ...set, _id: ids[index] }, session), undo);

  // 3. Per item stored: publish, afterChange, the answer.
  const data: ApiRecord[] = [];
  const errors: BatchFailure[] = [];
  for (const [index, outcome] of outcomes.entries()) {
    if (outcome.change) data.push(await answerStored(args, outcome.change, prepared[index].data));
    else if (outcome.failure) {
      // An item refused on its own (its unique value taken meanwhile: 409) is a refused create, as it would be alone.
      noteRefusedWrite({ ...args, action: writeAction(args, 'create') }, outcome.failure);
      errors.push({ index, status: outcome.failure.status, code: outcome.failure.code, message: outcome.failure.message });
    }
  }
  return { data, errors };
}
