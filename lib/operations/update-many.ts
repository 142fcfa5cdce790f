// Bulk update by where (PATCH /<slug>?where=): the same fields set on every record that matches the where
// AND the caller's update rule AND its read rule (a record the caller cannot read, it cannot find), each
// record going through the write pipeline's steps as a single PATCH does (write/pipeline.ts).
//
// Steps: the update rule -> the body checked once, alone (a bad body writes nothing) -> the matching records,
// at most core.api.maxBulk (else a 400, nothing written; a dry run stops here with the count) ->
//   1. prepare every record, in order: its hooks and checks (prepareWrite with the record as stored; under a
//      constraint the changed record must still match it), unique values within the request and against
//      the database. Any failure fails the whole request (a 4xx naming each failing record), nothing written;
//   2. store each record at the revision read, read back by the write itself (write/store-each.ts: in one
//      transaction where the server has them; else each record on its own, a record changed or deleted
//      meanwhile being its 409 in `errors`);
//   3. for each record stored: its change event, afterChange and the read steps (its id alone where the read
//      rule now hides it).
import type { ErrorDetail } from '../errors';
import { assertValidInput } from '../schema/validate-input';
import type { ApiRecord, RawDoc } from '../schema/to-record';
import { accessDenied, findableConstraint, readConstraintOrNull } from './access';
import { buildFilter } from './build-filter';
import { type BulkArgs, type BulkFailure, type BulkResult, dryRunAnswer, failureOf, selectRows } from './bulk-write';
import { constraintTest } from './constraint-match';
import { hasBeforeWriteHooks } from './hooks';
import { withAfterError } from './after-error';
import { type PreparedWrite, bodyOf, checkBody, prepareWrite } from './prepare-input';
import { presentFor } from './present-records';
import { applyInMemory } from './update';
import { answerStored, changeOf, storeUpdate } from './write/pipeline';
import { type ItemFailure, refuseFailedItems, storeEach } from './write/store-each';
import { uniqueValueFailures } from './write/unique-values';
import { checkWriteAccess } from './drafts/publish-access';

export interface UpdateManyArgs extends BulkArgs {
  data: unknown;
}

/** Sets the body's fields on every record the where selects; see the file's head for the steps. */
export function updateMany(args: UpdateManyArgs): Promise<BulkResult> {
  return withAfterError(args, 'update', async () => {
    const { collection } = args;
    const constraint = await checkWriteAccess({ ...args, op: 'update', data: bodyOf(args.data) });
    assertValidInput([...(await checkBody(args, args.data, 'update')), ...writeOnlyNamed(args)], 'The update is not valid; nothing was written.');
    // A record the caller may not read, it cannot find by its values (nor count in a dry run).
    const findable = await findableConstraint(args);
    const filter = await buildFilter({ ...args, nodes: [args.where, constraint, findable], deleted: false });
    const rows = await selectRows(args, filter);
    if (args.dryRun) return dryRunAnswer(rows.length);

    // 1. Prepare every record; any failure fails the request, nothing written.
    // Without before-write hooks every record gets the same change: the body is made ready once.
    const shared = hasBeforeWriteHooks(collection) ? undefined : await prepareWrite(args, args.data, { mode: 'update', operation: 'update' });
    if (shared) assertValidInput(shared.input.errors, 'The update is not valid; nothing was written.');
    // The rule's constraint as one test for every record (its relation paths resolved once, not per record).
    const withinRule = constraint && (await constraintTest(args, constraint));
    const failures: ItemFailure[] = [];
    const prepared: Array<{ stored: RawDoc; ready: PreparedWrite }> = [];
    for (const stored of rows) {
      try {
        const ready = shared ?? (await prepareOne(args, stored));
        if (withinRule && !withinRule(applyInMemory(collection, stored, ready.input.set, ready.input.unset))) throw accessDenied(args.user);
        prepared.push({ stored, ready });
      } catch (error) {
        failures.push({ item: { id: String(stored._id) }, error });
      }
    }
    failures.push(...(await uniqueValueFailures(collection, prepared.map(({ stored, ready }) => ({ item: { id: String(stored._id) }, set: ready.input.set, _id: stored._id })))));
    refuseFailedItems(failures, 'updated');

    // 2. Store each changed record at its revision.
    const changing = prepared.filter(({ ready }) => changeOf(ready.input));
    const outcomes = await storeEach(args, changing, ({ stored }) => ({ id: String(stored._id) }), ({ stored, ready }, session) => storeUpdate(args, { stored, input: ready.input, operation: 'update', session, conflict: CONFLICT }));

    // 3. Per record stored: publish, afterChange, the answer. Every record selected was readable, but the
    // change may have taken it out of the caller's view (or its API key lacks the read scope): those are
    // answered by id alone.
    const readable = await readConstraintOrNull({ ...args, data: undefined });
    const readTest = readable && (await constraintTest(args, readable.constraint));
    const mayRead = (row: RawDoc) => readTest !== null && readTest(row);
    const written = new Map(changing.map((item, index) => [item, outcomes[index]]));
    const data: Array<ApiRecord | { id: string }> = [];
    const errors: BulkFailure[] = [];
    for (const item of prepared) {
      const outcome = written.get(item);
      if (outcome?.change) {
        // afterChange runs for every record written, shown or not.
        const answer = await answerStored(args, outcome.change, item.ready.data);
        // eslint-disable-next-line @typescript-eslint/no-non-null-assertion -- an update's stored change always has the record as stored
        data.push(mayRead(outcome.change.after!) ? answer : { id: outcome.change.id });
      } else if (outcome?.failure) {
        errors.push(failureOf(args, String(item.stored._id), outcome.failure, 'update'));
      } else {
        // Nothing to change (as a single PATCH with nothing to change): the record as it is, not counted as updated.
        data.push(mayRead(item.stored) ? (await presentFor(args, [item.stored], undefined, 'update'))[0] : { id: String(item.stored._id) });
      }
    }
    errors.sort((a, b) => a.id.localeCompare(b.id));
    const updated = outcomes.filter((outcome) => outcome.change).length;
    return { data, meta: { matched: rows.length, updated, failed: errors.length }, errors };
  });
}

const CONFLICT = 'The record changed (or was deleted) after it was selected; it was not written.';

/**
 * A write-only field (a password) is set one record at a time: one body for many accounts would give them
 * one password (and one hash), which no one means to do by filter.
 */
function writeOnlyNamed({ collection, data }: UpdateManyArgs): ErrorDetail[] {
  const body = bodyOf(data) ?? {};
  return Object.keys(body)
    .filter((name) => Object.hasOwn(collection.descriptor.fields, name) && collection.descriptor.fields[name].writeOnly)
    .map((field) => ({ field, message: `${field} cannot be set by a bulk write; set it one record at a time`, code: 'not_bulk' }));
}

/** One record's hooks and checks, with the record as stored. */
async function prepareOne(args: UpdateManyArgs, stored: RawDoc): Promise<PreparedWrite> {
  const originalDoc = args.collection.serializeAll(stored);
  const prepared = await prepareWrite(args, args.data, { mode: 'update', operation: 'update', originalDoc, id: String(stored._id) });
  assertValidInput(prepared.input.errors, 'The update is not valid for this record.');
  return prepared;
}
