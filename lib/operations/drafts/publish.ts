// Publish: the working copy becomes the published record, as a create (its first publish) or an update of
// the published record through the write pipeline (write/pipeline.ts), with `versionOp: 'publish'`:
//   1. access: the `publish` rule (and `create` on a first publish), each rule's where held by the record
//      as it will be published -> both states read (working-copy.ts) -> If-Match compared with the draft's
//      ETag (412) -> an unchanged copy answers the published record, writing nothing ->
//      the copy's field values prepared as a body of the published record: beforeValidate, FULL validation
//      (required fields and types: a 400 listing them, nothing written), beforeChange ->
//   3-4. insert with the copy's `_id`, or update at the revision read (every field set or cleared to match
//      the copy); a unique value taken is a 409 from the store, nothing written ->
//   5-7. the change bus hears a create or an update of the published record, afterChange, the answer.
// Relations are not checked for existence: a relation to a record published later resolves once it is (ids
// are stable), and the copy's values passed field access when they were saved, so publishing, which sets no
// value of its own, asks no field rule again.
import { isDeepStrictEqual } from 'node:util';
import type { ApiRecord, RawDoc } from '../../schema/to-record';
import { assertValidInput } from '../../schema/validate-input';
import { checkAccess } from '../access';
import { withAfterError } from '../after-error';
import { assertWithinConstraints } from '../constraint-match';
import { withoutId } from '../globals';
import { prepareWrite } from '../prepare-input';
import { presentFor } from '../present-records';
import { type IfMatch, tagsToMatch } from '../precondition';
import type { CollectionRuntime, OperationArgs, WriteArgs } from '../runtime';
import { applyInMemory } from '../update';
import { answerStored, storeCreate, storeOne, storeUpdate } from '../write/pipeline';
import { recordToInsert } from '../write/store';
import type { StoredChange } from '../write/stored-change';
import { assertDraftMatches, draftsOf, fieldValues, json, readStates, sameFields } from './working-copy';

export interface PublishArgs extends OperationArgs {
  /** The record's id (a global: its slug). */
  id: string;
  /** The working copy's ETag the caller saw (412 when stale). */
  ifMatch?: IfMatch;
}

/** How a published answer is shaped: a global shows no id. */
export function publishedShape(collection: CollectionRuntime): ((record: ApiRecord) => ApiRecord) | undefined {
  return collection.descriptor.isGlobal ? (record) => withoutId(record) as ApiRecord : undefined;
}

/** Publishes the record's working copy; answers the published record. */
export function publish(args: PublishArgs): Promise<ApiRecord> {
  const writer: WriteArgs = { ...args, versionOp: 'publish' };
  return withAfterError(writer, 'update', async () => {
    const { collection } = args;
    const drafts = draftsOf(collection);
    const isGlobal = collection.descriptor.isGlobal;
    const constraint = await checkAccess({ ...args, op: 'publish' });
    const states = await readStates(collection, args.id);
    const tags = tagsToMatch(args.ifMatch);
    if (tags) await assertDraftMatches(args, tags, states);
    const { _id, published } = states;
    // A where the rule answers holds the record it replaces as well as the one it publishes: a publisher may
    // not move a record into its reach by editing the working copy (its owner, say) and publish over it.
    if (constraint && published) await assertWithinConstraints(args, [{ doc: published, constraint }]);
    // eslint-disable-next-line @typescript-eslint/no-non-null-assertion -- readStates found one of them
    const copy = (states.draft ?? published)!;
    const shape = publishedShape(collection);
    const answerUnchanged = async (row: RawDoc) => {
      const [record] = await presentFor(args, [row], undefined, 'update');
      return shape ? shape(record) : record;
    };
    // Nothing to publish: nobody is told of a change, no hook runs, nothing moves.
    if (published && sameFields(collection, copy, published)) return answerUnchanged(published);
    const body = fieldValues(collection, copy);
    const first = !published && !isGlobal;
    const createConstraint = first ? await checkAccess({ ...args, op: 'create', data: body }) : undefined;
    const previousDoc = published ? collection.serializeAll(published) : undefined;
    // The copy's values were held to field access when saved; the caller's hooks still run as the caller.
    const promoting: WriteArgs = { ...writer, overrideAccess: true, hookAccess: args.hookAccess ?? args.overrideAccess ?? false, trusted: true };
    const { input, data } = await prepareWrite(promoting, body, {
      mode: 'create',
      operation: published || isGlobal ? 'update' : 'create',
      originalDoc: previousDoc && (isGlobal ? withoutId(previousDoc) : previousDoc),
      id: String(_id),
      checkRelations: false,
    });
    assertValidInput(input.errors, 'The working copy is not valid as a published record; nothing was published.');
    const change = published ? diffFrom(collection, published, input.set) : undefined;
    if (change && change.set.length === 0 && change.unset.length === 0) return answerUnchanged(published as RawDoc);
    const willBe = published ? applyInMemory(collection, published, input.set, change?.unset ?? []) : recordToInsert(collection, { ...input.set, _id });
    const checks = [constraint, createConstraint].filter((c) => c !== undefined).map((c) => ({ doc: willBe, constraint: c }));
    if (checks.length) await assertWithinConstraints(args, checks);
    const stored = await storeOne(writer, async (session) => {
      let done: StoredChange;
      if (first) done = await storeCreate(writer, { ...input.set, _id }, session);
      else if (published) {
        const set = Object.fromEntries(change?.set.map((name) => [name, input.set[name]]) ?? []);
        done = await storeUpdate(writer, { input: { set, unset: change?.unset ?? [] }, operation: 'update', stored: published, session, conflict: 'The published record was changed while this publish was prepared; publish again.' });
      } else {
        // A global's first publish: its document is created by the write.
        done = await storeUpdate(writer, { input: { set: input.set, unset: [] }, operation: 'update', filter: { _id }, upsert: true, session, conflict: 'The global was changed while this publish was prepared; publish again.' });
      }
      // Hooks may have changed values on their way to the published record: the working copy is brought in
      // line in the same session, so a publish leaves the two the same (`_status: 'published'`).
      // eslint-disable-next-line @typescript-eslint/no-non-null-assertion -- a create's or update's stored change has the record as stored
      await alignCopy(drafts, collection, copy, done.after!, session);
      return done;
    });
    // eslint-disable-next-line @typescript-eslint/no-non-null-assertion -- an insert always stores; an update with `conflict` throws rather than answer null
    return answerStored(writer, stored!, data, shape ? { shape } : {});
  });
}

/** The fields whose values the published record must take (set) or lose (unset) to match `values`. */
function diffFrom(collection: CollectionRuntime, published: RawDoc, values: Record<string, unknown>): { set: string[]; unset: string[] } {
  const now = json(fieldValues(collection, published)) as Record<string, unknown>;
  const set = Object.keys(values).filter((name) => !isDeepStrictEqual(json(values[name]), now[name]));
  const unset = Object.keys(now).filter((name) => values[name] === undefined);
  return { set, unset };
}

/** Writes the published values into the working copy where they differ from it (hooks changed them). */
async function alignCopy(drafts: CollectionRuntime, collection: CollectionRuntime, copy: RawDoc, after: RawDoc, session: Parameters<typeof storeCreate>[2]): Promise<void> {
  if (sameFields(collection, copy, after)) return;
  const names = Object.values(collection.descriptor.fields).filter((field) => !field.system).map((field) => field.name);
  const set = Object.fromEntries(names.filter((name) => after[name] !== undefined && after[name] !== null).map((name) => [name, after[name]]));
  const unset = Object.fromEntries(names.filter((name) => set[name] === undefined).map((name) => [name, 1]));
  await drafts.model.updateOne({ _id: copy._id }, { $set: set, ...(Object.keys(unset).length ? { $unset: unset } : {}) }, { session });
}
