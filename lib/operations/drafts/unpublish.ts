// Unpublish: the published record goes (a delete through the write pipeline, write/pipeline.ts, with
// `versionOp: 'unpublish'`: subscribers and webhooks see a delete) and the working copy stays, so the record
// lives on as a draft. A record with no working copy yet (stored before drafts were switched on) gets one
// from its published record first, in the same session. Needs the `publish` rule (its where held by the
// published record); If-Match takes the draft's ETag, as publish does. Delete hooks do not run: the record
// is not deleted, only withdrawn.
import { NotFoundError, WriteConflictError } from '../../errors';
import type { ApiRecord, RawDoc } from '../../schema/to-record';
import { checkAccess, readConstraintOrNull } from '../access';
import { withAfterError } from '../after-error';
import { assertWithinConstraints, matchesConstraint } from '../constraint-match';
import { tagsToMatch } from '../precondition';
import type { OperationArgs } from '../runtime';
import { finishDelete, storeDelete, storeOne } from '../write/pipeline';
import type { PublishArgs } from './publish';
import { publishedShape } from './publish';
import { assertDraftMatches, draftsOf, presentDraft, readStates } from './working-copy';

/** Removes the published record, keeping its working copy; answers the working copy (`_status: 'draft'`). */
export function unpublish(args: PublishArgs): Promise<ApiRecord> {
  const writer: OperationArgs = { ...args, versionOp: 'unpublish' };
  return withAfterError(writer, 'delete', async () => {
    const { collection } = args;
    const drafts = draftsOf(collection);
    const constraint = await checkAccess({ ...args, op: 'publish' });
    const states = await readStates(collection, args.id);
    const { _id, published } = states;
    if (!published) throw new NotFoundError(collection.descriptor.isGlobal ? `The global "${collection.descriptor.slug}" is not published.` : 'This record is not published.');
    const tags = tagsToMatch(args.ifMatch);
    if (tags) await assertDraftMatches(args, tags, states);
    if (constraint) await assertWithinConstraints(args, [{ doc: published, constraint }]);
    const change = await storeOne(writer, async (session) => {
      // The record's values are kept as its working copy, exactly as they were published.
      if (!states.draft) await drafts.model.collection.insertOne({ ...published }, { session });
      // Only at the revision read: a change made meanwhile is not withdrawn unseen.
      return storeDelete(writer, { stored: published, filter: { _id }, session });
    });
    if (!change) {
      if (await collection.model.exists({ _id })) throw new WriteConflictError('The published record was changed while this unpublish was prepared; unpublish again.');
      throw new NotFoundError('This record is not published.');
    }
    await finishDelete(writer, change, undefined);
    const copy = await drafts.model.findOne({ _id }).lean<RawDoc>();
    // Gone meanwhile (its working copy deleted by another caller): the record no longer exists.
    if (!copy) throw new NotFoundError('No record with this id.');
    // A caller who may publish but not read drafts learns that the record is a draft now, not what it holds.
    const shown = (await readsDraft(args, copy)) ? await presentDraft(args, copy) : { id: String(copy._id) };
    const record: ApiRecord = { ...shown, _status: 'draft' };
    return publishedShape(collection)?.(record) ?? record;
  });
}

/** Whether the caller may read this working copy (readDrafts, its where matched against the copy). */
async function readsDraft(args: PublishArgs, copy: RawDoc): Promise<boolean> {
  if (args.overrideAccess) return true;
  // eslint-disable-next-line @typescript-eslint/no-non-null-assertion -- unpublish runs on drafts collections only (draftsOf first)
  const read = await readConstraintOrNull({ ...args, collection: args.collection.drafts! });
  return read !== null && (!read.constraint || (await matchesConstraint(args, copy, read.constraint)));
}
