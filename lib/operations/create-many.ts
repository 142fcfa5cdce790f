// Batch create, all or nothing: every item is made ready (field access, before-hooks, validation, unique
// values within the batch and against the database) before any is written; a write that still fails is
// rolled back by id. Each record then gets its afterChange and read steps, as a single create.
import { ConflictError, type ErrorDetail, ValidationError } from '../errors';
import { assertValidInput } from '../schema/validate-input';
import type { ApiRecord, RawDoc } from '../schema/to-record';
import { checkAccess } from './access';
import { assertUnanswered } from './answered';
import { assertWithinConstraints } from './constraint-match';
import { hasBeforeWriteHooks, withAfterError } from './hooks';
import { bodyOf, prepareWrite } from './prepare-input';
import { findMissingRelations } from './check-relations';
import { publishWrite, type CollectionRuntime, type WriteArgs } from './runtime';
import { answerWrite } from './write-answer';
import { isDuplicateKeyError, rethrowWriteError } from './write-errors';

export interface CreateManyArgs extends WriteArgs {
  items: unknown;
}

function sameValue(a: unknown): string {
  return a instanceof Date ? a.toISOString() : String(a);
}

/**
 * Every unique value repeated inside the batch or already stored, by field and item index (a 409 listing
 * them all, so a client fixes the whole batch in one go).
 */
async function checkUnique(collection: CollectionRuntime, sets: Record<string, unknown>[]): Promise<void> {
  const conflicts: Array<{ field: string; index: number }> = [];
  for (const field of Object.values(collection.descriptor.fields)) {
    if (!field.unique || field.system) continue;
    const seen = new Map<string, number>();
    sets.forEach((set, index) => {
      const value = set[field.name];
      if (value === undefined) return;
      const key = sameValue(value);
      if (seen.has(key)) conflicts.push({ field: field.name, index });
      else seen.set(key, index);
    });
    if (seen.size === 0) continue;
    const values = sets.map((s) => s[field.name]).filter((v) => v !== undefined);
    const existing = await collection.model.find({ [field.name]: { $in: values } }, { [field.name]: 1 }).lean<RawDoc[]>();
    for (const row of existing) {
      const index = seen.get(sameValue(row[field.name]));
      if (index !== undefined) conflicts.push({ field: field.name, index });
    }
  }
  if (conflicts.length) throw new ConflictError(conflicts.sort((a, b) => a.index - b.index));
}

async function inTurn<T, R>(items: readonly T[], work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (const item of items) results.push(await work(item));
  return results;
}

/** Creates every item or none; returns the records in input order. */
export function createMany(args: CreateManyArgs): Promise<ApiRecord[]> {
  return withAfterError(args, 'create', () => createAll(args));
}

async function createAll(args: CreateManyArgs): Promise<ApiRecord[]> {
  const { collection } = args;
  const items = args.items;
  const max = collection.descriptor.maxBatchSize;
  if (!Array.isArray(items) || items.length === 0) {
    throw new ValidationError('data must be a non-empty array of records.', [{ field: 'data', message: 'must be a non-empty array', code: 'invalid_type' }]);
  }
  if (items.length > max) {
    throw new ValidationError(`A batch may hold at most ${max} records.`, [{ field: 'data', message: `at most ${max} items`, code: 'too_many' }]);
  }
  const constraints = await Promise.all(
    items.map((item) =>
      checkAccess({ ...args, op: 'create', data: bodyOf(item) }),
    ),
  );
  const errors: ErrorDetail[] = [];
  const prepare = (item: unknown) => prepareWrite(args, item, { mode: 'create', operation: 'create', checkRelations: false });
  // With hooks, one item after another: they share the request's context and see the items in the client's
  // order. Without, together: a password hash per item runs on the thread pool.
  const prepared = hasBeforeWriteHooks(collection) ? await inTurn(items, prepare) : await Promise.all(items.map(prepare));
  prepared.forEach((ready, index) => {
    for (const error of ready.input.errors) errors.push({ ...error, index });
  });
  const sets = prepared.map((ready) => ready.input.set);
  // Sorted so the error list reads in item order although items were transformed concurrently.
  if (errors.length === 0) errors.push(...(await findMissingRelations(args, sets, true)));
  errors.sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
  assertValidInput(errors, 'Some records are not valid; nothing was created.');
  await checkUnique(collection, sets);

  const docs = sets.map((set) => new collection.model(set));
  await assertWithinConstraints(args, docs.map((doc, index) => ({ doc: doc.toObject() as RawDoc, constraint: constraints[index] })));
  assertUnanswered(args);
  try {
    await collection.model.insertMany(docs, { ordered: true });
  } catch (error) {
    // Another writer took a unique value between the check and the insert: undo what did land.
    await collection.model.deleteMany({ _id: { $in: docs.map((d) => d._id) } });
    const index = isDuplicateKeyError(error) ? (error.writeErrors?.[0]?.index ?? error.index) : undefined;
    rethrowWriteError(error, index);
  }
  const rows = docs.map((doc) => doc.toObject() as RawDoc);
  publishWrite(args, collection, 'create', rows.map((row) => String(row._id)), undefined, rows);
  const records: ApiRecord[] = [];
  for (const [index, row] of rows.entries()) records.push(await answerWrite(args, 'create', { row, data: prepared[index].data }));
  return records;
}
