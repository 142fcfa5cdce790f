// The update operation (PATCH semantics): access -> the stored record, when hooks, the access rule or
// If-Match need it -> If-Match compared (412) -> the body made ready (prepare-input.ts) -> the write ->
// notify -> afterChange and the read steps.
// Without a constraint or If-Match the write is one atomic findOneAndUpdate. With an access constraint the
// rule must hold before AND after the change: the change is applied in memory and checked, then written
// only where the record's revision is still the one checked, so no reader ever sees it outside. With
// If-Match the write is conditioned on the revision compared, so of racing writers with one tag one wins.
// A feature that must know the record just before the change (realtime: who could read it) makes every
// update read it first and write at its revision too.
import { NotFoundError, WriteConflictError } from '../errors';
import type { WhereNode } from '../query/types';
import type { ClientSession } from 'mongoose';
import { type ValidatedInput, assertValidInput } from '../schema/validate-input';
import type { ApiRecord, RawDoc } from '../schema/to-record';
import { checkAccess, findableConstraint } from './access';
import { assertUnanswered } from './answered';
import { buildFilter, idCondition } from './build-filter';
import { assertWithinConstraints } from './constraint-match';
import { hooksSeeOriginal, withAfterError } from './hooks';
import { type IfMatch, assertTagMatches, conditionalMiss, tagsToMatch } from './precondition';
import { atRevision } from '../schema/revision';
import { toRecordId } from './record-id';
import { bodyOf, prepareWrite } from './prepare-input';
import { presentFor } from './present-records';
import { type CollectionRuntime, needsPriorState, publishWrite, type WriteArgs } from './runtime';
import { answerWrite } from './write-answer';
import { rethrowWriteError } from './write-errors';

export interface UpdateArgs extends WriteArgs {
  id: string;
  data: unknown;
  /** Write only if the record as this caller reads it has one of these ETags (412 otherwise); `*`: any. */
  ifMatch?: IfMatch;
  /**
   * Server code's extra condition (it may name hidden fields): the record is written only while it also
   * matches this, checked in the same database operation as the write, else it is not found (404). Auth's
   * single-use tokens rely on it: of two requests spending one token, one finds it gone.
   */
  condition?: WhereNode;
}

/** Attempts before a record that keeps changing under a constrained update is a 409. */
const MAX_ATTEMPTS = 3;

/** The stored document as it would be after the change, cast by the schema as the write would cast it. */
export function applyInMemory(collection: CollectionRuntime, before: RawDoc, set: Record<string, unknown>, unset: readonly string[]): RawDoc {
  const doc = collection.model.hydrate(before);
  doc.set(set);
  for (const name of unset) doc.set(name, undefined);
  return doc.toObject() as RawDoc;
}

/**
 * Writes the change where the filter still matches; null when nothing matched. The whole row comes back,
 * hidden fields included: change subscribers' access constraints may name them (an owner id), and
 * serialize() keeps them out of every answer.
 */
export async function write(collection: CollectionRuntime, filter: Record<string, unknown>, change: Record<string, unknown>, session?: ClientSession): Promise<RawDoc | null> {
  try {
    return await collection.model.findOneAndUpdate(filter, change, { returnDocument: 'after', runValidators: true, session }).lean<RawDoc>();
  } catch (error) {
    rethrowWriteError(error);
  }
}

interface Conditions {
  /** The record as read before the change. */
  stored: RawDoc;
  /** The access rule's constraint: the record must match it after the change too. */
  constraint: WhereNode | undefined;
  /** If-Match named tags: a record that moved since `stored` is a 412, never a retry. */
  strict: boolean;
}

/**
 * Writes the change only where the revision is still the one read (and, under a constraint, only after
 * checking the changed record in memory). A record changed meanwhile: 412 with If-Match; otherwise it is
 * read and checked again, a few times, before a 409.
 */
async function writeAtRevision(args: UpdateArgs, filter: Record<string, unknown>, change: Record<string, unknown>, input: { set: Record<string, unknown>; unset: string[] }, conditions: Conditions): Promise<{ row: RawDoc; before: RawDoc }> {
  const { constraint, strict } = conditions;
  let before: RawDoc | null = conditions.stored;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    if (!before) throw notFound();
    if (constraint) await assertWithinConstraints(args, [{ doc: applyInMemory(args.collection, before, input.set, input.unset), constraint }]);
    const row = await write(args.collection, { $and: [filter, atRevision(before._rev)] }, change);
    if (row) return { row, before };
    if (strict) return conditionalMiss(args.collection.model.exists(filter), notFound());
    before = await args.collection.model.findOne(filter).lean<RawDoc>();
  }
  throw new WriteConflictError();
}

/** The Mongo update of a prepared body; undefined when it changes nothing. */
export function changeOf(input: Pick<ValidatedInput, 'set' | 'unset'>): Record<string, unknown> | undefined {
  if (Object.keys(input.set).length === 0 && input.unset.length === 0) return undefined;
  const change: Record<string, unknown> = { $set: input.set };
  if (input.unset.length) change.$unset = Object.fromEntries(input.unset.map((name) => [name, 1]));
  return change;
}

function notFound(): NotFoundError {
  return new NotFoundError('No record with this id.');
}

/** Applies a partial update; null clears a non-required field. An empty change writes nothing. */
export function update(args: UpdateArgs): Promise<ApiRecord> {
  return withAfterError(args, 'update', async () => {
    const { runtime, collection } = args;
    const _id = toRecordId(args.id);
    const constraint = await checkAccess({ ...args, op: 'update', data: bodyOf(args.data) });
    // A record the caller may not read is not found, as its GET is not.
    const findable = await findableConstraint(args);
    const filter = await buildFilter({ ...args, nodes: [idCondition(collection, [_id]), constraint, findable, args.condition], deleted: false });
    const tags = tagsToMatch(args.ifMatch);
    // Written at a revision read when something must know the record just before the change.
    const atRevision = constraint !== undefined || tags !== undefined || needsPriorState(runtime, collection.descriptor);
    const stored = atRevision || hooksSeeOriginal(collection) ? await collection.model.findOne(filter).lean<RawDoc>() : undefined;
    if (stored === null) throw notFound();
    // Compared before any hook runs: a stale write does nothing at all.
    if (tags) assertTagMatches(tags, (await presentFor(args, [stored!]))[0]);
    const previousDoc = stored && collection.serializeAll(stored);
    const { input, data } = await prepareWrite(args, args.data, { mode: 'update', operation: 'update', originalDoc: previousDoc, id: args.id });
    assertValidInput(input.errors, 'The update is not valid.');
    const fields = [...Object.keys(input.set), ...input.unset];
    const change = changeOf(input);
    if (!change) {
      // Nothing to change: not even updatedAt moves, nobody is told of a change, and no afterChange runs.
      const row = await collection.model.findOne(filter, collection.projection).lean<RawDoc>();
      if (!row) throw notFound();
      return (await presentFor(args, [row], undefined, 'update'))[0];
    }
    assertUnanswered(args);
    // Written at a revision read, the row as read is the record just before the change; else it is unknown.
    const { row, before } = atRevision ? await writeAtRevision(args, filter, change, input, { stored: stored!, constraint, strict: tags !== undefined }) : { row: await write(collection, filter, change), before: undefined };
    if (!row) throw notFound();
    publishWrite(runtime, collection, 'update', [String(row._id)], fields, [row], undefined, before && [before], args.actor);
    return answerWrite(args, 'update', { row, data, previousDoc });
  });
}
