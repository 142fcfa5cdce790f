// Drops a record's unpublished changes (DELETE /<slug>/:id/draft): its working copy becomes its published
// record again, a write of the working copy through the pipeline (the update rule on working copies,
// If-Match with the draft's ETag, a version of the copy). A never-published record has nothing to return
// to: it is deleted (the delete rule on working copies).
import { NotFoundError } from '../../errors';
import type { RawDoc } from '../../schema/to-record';
import { checkAccess, findableConstraint } from '../access';
import { buildFilter, idCondition } from '../build-filter';
import { type DeleteArgs, deleteRecord } from '../delete';
import { withAfterError } from '../after-error';
import { type IfMatch, assertTagMatches, conditionalMiss, tagsToMatch } from '../precondition';
import { presentFor } from '../present-records';
import { toRecordId } from '../record-id';
import type { CollectionRuntime, OperationArgs } from '../runtime';
import { answerStored, storeOne, storeUpdate } from '../write/pipeline';
import { type DraftAnswer, draftsOf } from './working-copy';

export interface DiscardDraftArgs extends OperationArgs {
  id: string;
  /** The working copy's ETag the caller saw (412 when stale). */
  ifMatch?: IfMatch;
}

/** What the working copy must become to equal `published`: its fields set, the ones it lacks cleared. */
export function resetTo(collection: CollectionRuntime, published: RawDoc | null, copy: RawDoc): { set: Record<string, unknown>; unset: string[] } {
  const set: Record<string, unknown> = {};
  const unset: string[] = [];
  for (const field of Object.values(collection.descriptor.fields)) {
    if (field.system) continue;
    const value = published?.[field.name];
    if (value !== undefined) set[field.name] = value;
    else if (copy[field.name] !== undefined) unset.push(field.name);
  }
  return { set, unset };
}

/** Resets record `id`'s working copy to its published record; `{ deleted: true }` for a never-published one. */
export async function discardDraft(args: DiscardDraftArgs): Promise<DraftAnswer | { deleted: true }> {
  const { collection } = args;
  const drafts = draftsOf(collection);
  const _id = toRecordId(args.id);
  const published = await collection.model.findOne({ _id }).lean<RawDoc>();
  if (!published) return deleteRecord({ ...args, collection: drafts } satisfies DeleteArgs);
  const onDrafts = { ...args, collection: drafts };
  return withAfterError(onDrafts, 'update', async () => {
    const constraint = await checkAccess({ ...onDrafts, op: 'update' });
    const findable = await findableConstraint(onDrafts);
    const filter = await buildFilter({ ...onDrafts, nodes: [idCondition(drafts, [_id]), constraint, findable] });
    const copy = await drafts.model.findOne(filter).lean<RawDoc>();
    if (!copy) {
      // No copy: the published record is the working copy already, nothing to drop (a copy hidden by the
      // caller's constraint stays hidden).
      if (await drafts.model.exists({ _id })) throw new NotFoundError('No record with this id.');
      const [record] = await presentFor(onDrafts, [published]);
      const tags = tagsToMatch(args.ifMatch);
      if (tags) assertTagMatches(tags, record);
      return { record, status: 'published' as const };
    }
    const tags = tagsToMatch(args.ifMatch);
    if (tags) assertTagMatches(tags, (await presentFor(onDrafts, [copy]))[0]);
    const input = resetTo(drafts, published, copy);
    const change = await storeOne(onDrafts, (session) => storeUpdate(onDrafts, { input, operation: 'update', filter, stored: copy, session }));
    if (!change) return conditionalMiss(drafts.model.exists(filter), new NotFoundError('No record with this id.'));
    return { record: await answerStored(onDrafts, change, {}), status: 'published' as const };
  });
}
