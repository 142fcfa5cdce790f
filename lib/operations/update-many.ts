// Bulk update by where (PATCH /<slug>?where=): the same fields set on every record that matches the where
// AND the caller's update rule, each record written as a single PATCH writes it.
//
// Steps: the update rule -> the body checked once, alone (a bad body writes nothing) -> the matching records
// (the where AND the update rule AND the read rule: a record the caller cannot read, it cannot find),
// at most core.api.maxBulk (else a 400, nothing written; a dry run stops here with the count) -> per record,
// in order: its hooks and checks (prepareWrite with the record as stored; under a constraint the changed
// record must still match it) -> the writes, in one command, each record only at the revision read, so a
// record changed meanwhile is reported, never overwritten (in one transaction where the server has them:
// bulk-write.ts) -> per record: its change event, afterChange and the read steps (its id alone where the
// read rule hides it). A record that fails any step is reported in `errors` and not written.
import type { ClientSession } from 'mongoose';
import type { WhereNode } from '../query/types';
import { assertValidInput } from '../schema/validate-input';
import { withRevisionMoved } from '../schema/revision';
import type { ApiRecord, RawDoc } from '../schema/to-record';
import type { ErrorDetail } from '../errors';
import { accessDenied, checkAccess, findableConstraint, readConstraintOrNull } from './access';
import { assertUnanswered } from './answered';
import { buildFilter } from './build-filter';
import { type BulkArgs, type BulkFailure, type BulkItem, type BulkResult, type RevisionGroup, atRevisions, dryRunAnswer, failureOf, selectRows, writeAll } from './bulk-write';
import { constraintTest } from './constraint-match';
import { hasBeforeWriteHooks, withAfterError } from './hooks';
import { type PreparedWrite, bodyOf, checkBody, prepareWrite } from './prepare-input';
import { presentFor } from './present-records';
import { publishWrite } from './runtime';
import type { CollectionRuntime } from './runtime';
import { applyInMemory, changeOf } from './update';
import { toWriteError } from './write-errors';
import { answerWrite } from './write-answer';

export interface UpdateManyArgs extends BulkArgs {
  data: unknown;
}

/** One selected record on its way: as stored, then its prepared change, then the row written. */
interface Pending extends BulkItem {
  prepared?: PreparedWrite;
  row?: RawDoc;
}

/** Sets the body's fields on every record the where selects; see the file's head for the steps. */
export function updateMany(args: UpdateManyArgs): Promise<BulkResult> {
  return withAfterError(args, 'update', async () => {
    const { collection } = args;
    const constraint = await checkAccess({ ...args, op: 'update', data: bodyOf(args.data) });
    assertValidInput([...(await checkBody(args, args.data, 'update')), ...writeOnlyNamed(args)], 'The update is not valid; nothing was written.');
    // A record the caller may not read, it cannot find by its values (nor count in a dry run).
    const findable = await findableConstraint(args);
    const filter = await buildFilter({ ...args, nodes: [args.where, constraint, findable], deleted: false });
    const rows = await selectRows(args, filter);
    if (args.dryRun) return dryRunAnswer(rows.length);

    const failures: BulkFailure[] = [];
    const fail = (pending: Pending, error: unknown) => failures.push(failureOf(args, String(pending.stored._id), error));
    const pending: Pending[] = rows.map((stored) => ({ stored }));
    // Without before-write hooks every record gets the same change: the body is made ready once.
    const shared = hasBeforeWriteHooks(collection) ? undefined : await prepareWrite(args, args.data, { mode: 'update', operation: 'update' });
    if (shared) assertValidInput(shared.input.errors, 'The update is not valid; nothing was written.');
    // The rule's constraint as one test for every record (its relation paths resolved once, not per record).
    const withinRule = constraint && (await constraintTest(args, constraint));
    for (const item of pending) {
      try {
        const prepared = shared ?? (await prepareOne(args, item.stored));
        if (withinRule) checkWithinRule(args, item.stored, prepared, withinRule);
        // Only a record through every check is written.
        item.prepared = prepared;
      } catch (error) {
        fail(item, error);
      }
    }
    const ready = pending.filter((item) => item.prepared && changeOf(item.prepared.input));
    const unchanged = new Set(pending.filter((item) => item.prepared && !changeOf(item.prepared.input)));
    assertUnanswered(args);
    await writeChanges(args, ready);
    for (const item of ready) if (item.failure !== undefined) fail(item, item.failure);

    const written = ready.filter((item) => item.row);
    // Every record selected was readable, but the change may have taken it out of the caller's view (or the
    // caller's API key lacks the read scope): those are answered by id alone.
    const readable = await readConstraintOrNull({ ...args, data: undefined });
    const readTest = readable && (await constraintTest(args, readable.constraint));
    const mayRead = (row: RawDoc) => readTest !== null && readTest(row);
    const data: Array<ApiRecord | { id: string }> = [];
    for (const item of pending) {
      if (item.row) {
        const { input, data: body } = item.prepared!;
        // Written at the revision read: the row as read is the record just before the change.
        publishWrite(args, collection, 'update', [String(item.row._id)], [...Object.keys(input.set), ...input.unset], [item.row], undefined, [item.stored]);
        // afterChange runs for every record written, shown or not.
        const answer = await answerWrite(args, 'update', { row: item.row, data: body, previousDoc: collection.serializeAll(item.stored) });
        data.push(mayRead(item.row) ? answer : { id: String(item.row._id) });
      } else if (unchanged.has(item)) {
        // Nothing to change (as a single PATCH with nothing to change): the record as it is, not counted as updated.
        data.push(mayRead(item.stored) ? (await presentFor(args, [item.stored], undefined, 'update'))[0] : { id: String(item.stored._id) });
      }
    }
    failures.sort((a, b) => a.id.localeCompare(b.id));
    return { data, meta: { matched: rows.length, updated: written.length, failed: failures.length }, errors: failures };
  });
}

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

/** One record's hooks and checks, with the record as stored (a 400 of its own fails this record alone). */
async function prepareOne(args: UpdateManyArgs, stored: RawDoc): Promise<PreparedWrite> {
  const originalDoc = args.collection.serializeAll(stored);
  const prepared = await prepareWrite(args, args.data, { mode: 'update', operation: 'update', originalDoc, id: String(stored._id) });
  assertValidInput(prepared.input.errors, 'The update is not valid for this record.');
  return prepared;
}

/** Under the rule's constraint, the record as changed must still match it: else the refusal a single update gives. */
function checkWithinRule(args: UpdateManyArgs, stored: RawDoc, prepared: PreparedWrite, withinRule: (doc: RawDoc) => boolean): void {
  const { set, unset } = prepared.input;
  if (!withinRule(applyInMemory(args.collection, stored, set, unset))) throw accessDenied(args.user);
}

/**
 * Writes every ready record at the revision it was read at (bulk-write.ts), in one bulkWrite: one
 * updateMany per group of records read at one revision and given one change (usually one group: without
 * hooks every record gets the body), except that a change setting a unique field is one update per
 * record, so a conflict is told per record. A record written is its row as read with its change applied:
 * nothing else of it can have moved, since its revision had not.
 */
async function writeChanges(args: UpdateManyArgs, ready: Pending[]): Promise<void> {
  const { collection } = args;
  if (ready.length === 0) return;
  const now = args.runtime.config.clock.now();
  // Each record's change once, as text: it groups the records and finds the change's cast values.
  const changeKeys = new Map<Pending, string>();
  const written = new Map<Pending, RawDoc>();
  const castByChange = new Map<string, Record<string, unknown>>();
  for (const item of ready) {
    const { input } = item.prepared!;
    const key = JSON.stringify(changeOf(input));
    changeKeys.set(item, key);
    if (!castByChange.has(key)) castByChange.set(key, castValues(collection, input.set));
    written.set(item, asWritten(item, castByChange.get(key)!, now));
  }
  const groups = atRevisions(ready, (item) => (setsUnique(collection, item.prepared!.input.set) ? String(item.stored._id) : changeKeys.get(item)!));
  const updates = groups.map(({ filter, items }) => {
    const change = changeOf(items[0].prepared!.input)!;
    return { updateMany: { filter, update: withRevisionMoved({ ...change, $set: { ...(change.$set as object), updatedAt: now } }), timestamps: false } };
  });
  const write = async (session?: ClientSession): Promise<number> => {
    try {
      return (await collection.model.bulkWrite(updates as never, { ordered: false, session })).matchedCount;
    } catch (error) {
      return failuresOfBulkWrite(error, groups, session);
    }
  };
  const holds = (item: Pending, now: RawDoc | undefined) => now !== undefined && holdsChange(now, written.get(item)!, item.prepared!.input);
  await writeAll(args, ready, write, holds, 'The record changed (or no longer matched the where) after it was selected; it was not written.');
  for (const item of ready) if (item.failure === undefined) item.row = written.get(item);
}

/** The values `set` stores, cast by the schema as a write casts them (the same for every record: fields are flat). */
function castValues(collection: CollectionRuntime, set: Record<string, unknown>): Record<string, unknown> {
  const cast = applyInMemory(collection, {}, set, []);
  return Object.fromEntries(Object.keys(set).map((name) => [name, cast[name]]));
}

/** The row as the write leaves it: as read, with the change, the stamp and the next revision. */
function asWritten(item: Pending, cast: Record<string, unknown>, now: Date): RawDoc {
  const { stored } = item;
  const row: RawDoc = { ...stored, ...cast, updatedAt: now, _rev: (typeof stored._rev === 'number' ? stored._rev : 0) + 1 };
  for (const name of item.prepared!.input.unset) delete row[name];
  return row;
}

/** Whether the record as it is now holds the change: its set fields as written, its cleared fields absent. */
function holdsChange(now: RawDoc, written: RawDoc, input: PreparedWrite['input']): boolean {
  return Object.keys(input.set).every((name) => JSON.stringify(now[name]) === JSON.stringify(written[name])) && input.unset.every((name) => now[name] === undefined);
}

function setsUnique(collection: CollectionRuntime, set: Record<string, unknown>): boolean {
  return Object.keys(set).some((name) => collection.descriptor.fields[name]?.unique);
}

/**
 * The records matched by a bulkWrite that went on past failures (`ordered: false`). A write error of a
 * one-record update (a unique conflict, as its 409) is that record's; any other is thrown, as is any
 * failure in a transaction, which is then over with none of it written.
 */
function failuresOfBulkWrite(error: unknown, groups: Array<RevisionGroup<Pending>>, session: ClientSession | undefined): number {
  const failed = error as { writeErrors?: Array<{ index: number; err?: unknown }>; result?: { matchedCount?: number } };
  if (!Array.isArray(failed?.writeErrors) || typeof failed.result?.matchedCount !== 'number') throw error;
  if (session) throw toWriteError(failed.writeErrors[0]?.err ?? error);
  for (const writeError of failed.writeErrors) {
    const group = groups[writeError.index];
    if (group?.items.length !== 1) throw error;
    group.items[0].failure = toWriteError(writeError.err ?? writeError);
  }
  return failed.result.matchedCount;
}
