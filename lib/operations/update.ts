// The update operation (PATCH semantics), a user of the write pipeline (write/pipeline.ts):
//   1. prepare: access -> the stored record, when hooks, the access rule, If-Match or a feature need it ->
//   2. precondition: If-Match compared (412), before any hook runs -> the body made ready (prepare-input.ts)
//   3-4. store at the revision read (when one was) and record the change at the seam ->
//   5-7. publish, afterChange, the answer.
// Without a record read the write is one atomic findOneAndUpdate. With an access constraint the rule must
// hold before AND after the change: the change is applied in memory and checked, then written only where
// the record's revision is still the one checked. A record changed meanwhile: with If-Match a 412; with
// before-write hooks (whose change was made from the record they saw) a 409; else it is read and checked
// again, a few times, before a 409.
import { NotFoundError, WriteConflictError } from '../errors';
import type { WhereNode } from '../query/types';
import { assertValidInput } from '../schema/validate-input';
import type { ApiRecord, RawDoc } from '../schema/to-record';
import { findableConstraint } from './access';
import { buildFilter, idCondition } from './build-filter';
import { assertWithinConstraints } from './constraint-match';
import { hasBeforeWriteHooks, hooksSeeOriginal } from './hooks';
import { withAfterError } from './after-error';
import { type IfMatch, assertTagMatches, conditionalMiss, tagsToMatch } from './precondition';
import { toRecordId } from './record-id';
import { bodyOf, prepareWrite } from './prepare-input';
import { presentFor } from './present-records';
import { type CollectionRuntime, needsPriorState, type WriteArgs } from './runtime';
import { answerStored, changeOf, storeOne, storeUpdate } from './write/pipeline';
import type { StoredChange } from './write/stored-change';
import { checkWriteAccess } from './drafts/publish-access';

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
  return doc.toObject();
}

function notFound(): NotFoundError {
  return new NotFoundError('No record with this id.');
}

/** Applies a partial update; null clears a non-required field. An empty change writes nothing. */
export function update(args: UpdateArgs): Promise<ApiRecord> {
  return withAfterError(args, 'update', async () => {
    const { runtime, collection } = args;
    // 1. Access: a record the caller may not read is not found, as its GET is not.
    const constraint = await checkWriteAccess({ ...args, op: 'update', data: bodyOf(args.data) });
    const findable = await findableConstraint(args);
    const filter = await buildFilter({ ...args, nodes: [idCondition(collection, [toRecordId(args.id)]), constraint, findable, args.condition], deleted: false });
    const tags = tagsToMatch(args.ifMatch);
    // The record is read (and then written at its revision) when anything must know it just before the change.
    const readFirst = constraint !== undefined || tags !== undefined || needsPriorState(runtime, collection.descriptor) || hooksSeeOriginal(collection);
    const stored = readFirst ? await collection.model.findOne(filter).lean<RawDoc>() : undefined;
    if (stored === null) throw notFound();
    // 2. If-Match, compared before any hook runs: a stale write does nothing at all.
    // eslint-disable-next-line @typescript-eslint/no-non-null-assertion -- tags set means the record was read first (readFirst)
    if (tags) assertTagMatches(tags, (await presentFor(args, [stored!]))[0]);
    const previousDoc = stored && collection.serializeAll(stored);
    const { input, data } = await prepareWrite(args, args.data, { mode: 'update', operation: 'update', originalDoc: previousDoc, id: args.id });
    assertValidInput(input.errors, 'The update is not valid.');
    if (!changeOf(input)) {
      // Nothing to change: not even updatedAt moves, nobody is told of a change, and no afterChange runs.
      const row = await collection.model.findOne(filter, collection.projection).lean<RawDoc>();
      if (!row) throw notFound();
      return (await presentFor(args, [row], undefined, 'update'))[0];
    }
    // 3-4. Store (at the revision read, when one was) and record the change.
    // Hooks made the change from the record they saw: it is written over that record or not at all (a 409).
    const retry = !hasBeforeWriteHooks(collection);
    const change = stored ? await storeAtRevision(args, filter, input, { stored, constraint, strict: tags !== undefined, retry }) : await storeOne(args, (session) => storeUpdate(args, { input, operation: 'update', filter, session }));
    if (!change) throw notFound();
    // 5-7. Publish, afterChange, answer.
    return answerStored(args, change, data);
  });
}

/**
 * Stores the change only where the revision is still the one read (under a constraint, only after checking
 * the changed record in memory). A record changed meanwhile: 412 with If-Match (`strict`); otherwise it is
 * read and checked again, a few times, before a 409.
 */
async function storeAtRevision(
  args: UpdateArgs,
  filter: Record<string, unknown>,
  input: { set: Record<string, unknown>; unset: string[] },
  conditions: { stored: RawDoc; constraint: WhereNode | undefined; strict: boolean; retry: boolean },
): Promise<StoredChange> {
  const { constraint, strict } = conditions;
  let stored: RawDoc | null = conditions.stored;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    if (!stored) throw notFound();
    if (constraint) await assertWithinConstraints(args, [{ doc: applyInMemory(args.collection, stored, input.set, input.unset), constraint }]);
    const at = stored;
    const change = await storeOne(args, (session) => storeUpdate(args, { input, operation: 'update', filter, stored: at, session }));
    if (change) return change;
    if (strict) return conditionalMiss(args.collection.model.exists(filter), notFound());
    if (!conditions.retry) break;
    stored = await args.collection.model.findOne(filter).lean<RawDoc>();
  }
  throw new WriteConflictError();
}
