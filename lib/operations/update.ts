// The update operation (PATCH semantics): access -> the stored record, when hooks are told of it -> the
// body made ready (prepare-input.ts) -> the write -> notify -> afterChange and the read steps.
// Without an access constraint the write is one atomic findOneAndUpdate. With one, the rule must hold
// before AND after the change: the record is read, the change applied in memory and checked, then written
// only if nobody changed it meanwhile, so no reader ever sees it outside.
import { NotFoundError, WriteConflictError } from '../errors';
import type { WhereNode } from '../query/types';
import { assertValidInput } from '../schema/validate-input';
import type { ApiRecord, RawDoc } from '../schema/to-record';
import { checkAccess } from './access';
import { assertUnanswered } from './answered';
import { buildFilter, idCondition } from './build-filter';
import { assertWithinConstraints } from './constraint-match';
import { hooksSeeOriginal, withAfterError } from './hooks';
import { toRecordId } from './record-id';
import { bodyOf, prepareWrite } from './prepare-input';
import { presentFor } from './present-records';
import { publishWrite, type WriteArgs } from './runtime';
import { answerWrite } from './write-answer';
import { rethrowWriteError } from './write-errors';

export interface UpdateArgs extends WriteArgs {
  id: string;
  data: unknown;
}

/** Attempts before a record that keeps changing under a constrained update is a 409. */
const MAX_ATTEMPTS = 3;

/** The stored document as it would be after the change, cast by the schema as the write would cast it. */
function applyInMemory(args: UpdateArgs, before: RawDoc, set: Record<string, unknown>, unset: readonly string[]): RawDoc {
  const doc = args.collection.model.hydrate(before);
  doc.set(set);
  for (const name of unset) doc.set(name, undefined);
  return doc.toObject() as RawDoc;
}

/**
 * Writes the change where the filter still matches; null when nothing matched. The whole row comes back,
 * hidden fields included: change subscribers' access constraints may name them (an owner id), and
 * serialize() keeps them out of every answer.
 */
async function write(args: UpdateArgs, filter: Record<string, unknown>, change: Record<string, unknown>): Promise<RawDoc | null> {
  try {
    return await args.collection.model.findOneAndUpdate(filter, change, { returnDocument: 'after', runValidators: true }).lean<RawDoc>();
  } catch (error) {
    rethrowWriteError(error);
  }
}

/** Reads, checks in memory, and writes unless `updatedAt` moved meanwhile (then tries again). */
async function writeWithin(args: UpdateArgs, filter: Record<string, unknown>, change: Record<string, unknown>, constraint: WhereNode, input: { set: Record<string, unknown>; unset: string[] }): Promise<RawDoc> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const before = await args.collection.model.findOne(filter).lean<RawDoc>();
    if (!before) throw new NotFoundError('No record with this id.');
    await assertWithinConstraints(args, [{ doc: applyInMemory(args, before, input.set, input.unset), constraint }]);
    const row = await write(args, { $and: [filter, { updatedAt: before.updatedAt ?? null }] }, change);
    if (row) return row;
  }
  throw new WriteConflictError();
}

/** Applies a partial update; null clears a non-required field. An empty change writes nothing. */
export function update(args: UpdateArgs): Promise<ApiRecord> {
  return withAfterError(args, 'update', async () => {
    const { runtime, collection } = args;
    const _id = toRecordId(args.id);
    const constraint = await checkAccess({ ...args, op: 'update', data: bodyOf(args.data) });
    const filter = await buildFilter({ ...args, nodes: [idCondition(collection, [_id]), constraint], deleted: false });
    const original = hooksSeeOriginal(collection) ? await collection.model.findOne(filter).lean<RawDoc>() : undefined;
    if (original === null) throw new NotFoundError('No record with this id.');
    const previousDoc = original && collection.serializeAll(original);
    const { input, data } = await prepareWrite(args, args.data, { mode: 'update', operation: 'update', originalDoc: previousDoc, id: args.id });
    assertValidInput(input.errors, 'The update is not valid.');
    const fields = [...Object.keys(input.set), ...input.unset];
    if (fields.length === 0) {
      // Nothing to change: not even updatedAt moves, nobody is told of a change, and no afterChange runs.
      const row = await collection.model.findOne(filter, collection.projection).lean<RawDoc>();
      if (!row) throw new NotFoundError('No record with this id.');
      return (await presentFor(args, [row], undefined, 'update'))[0];
    }
    const change: Record<string, unknown> = { $set: input.set };
    if (input.unset.length) change.$unset = Object.fromEntries(input.unset.map((name) => [name, 1]));
    assertUnanswered(args);
    const row = constraint ? await writeWithin(args, filter, change, constraint, input) : await write(args, filter, change);
    if (!row) throw new NotFoundError('No record with this id.');
    publishWrite(runtime, collection, 'update', [String(row._id)], fields, [row]);
    return answerWrite(args, 'update', { row, data, previousDoc });
  });
}
