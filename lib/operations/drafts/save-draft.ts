// Saves a working copy (PATCH /<slug>/:id/draft): the update operation on the drafts runtime (field access,
// hooks told `draft: true`, types, unknown fields, If-Match compared with the draft's ETag; `required` and
// `unique` wait for publish). A published record without a working copy yet gets its copy first.
import { type UpdateArgs, update } from '../update';
import { toRecordId } from '../record-id';
import { checkAccess } from '../access';
import { bodyOf } from '../prepare-input';
import { type DraftAnswer, draftsOf, ensureWorkingCopy, statusesOf } from './working-copy';

/** Applies a partial update to record `id`'s working copy; answers it with its status. */
export async function saveDraft(args: UpdateArgs): Promise<DraftAnswer> {
  const { collection } = args;
  const drafts = draftsOf(collection);
  const _id = toRecordId(args.id);
  // Refused callers make no copy: the rule is asked before (and again by the update).
  await checkAccess({ ...args, collection: drafts, op: 'update', data: bodyOf(args.data) });
  await ensureWorkingCopy(collection, _id);
  const record = await update({ ...args, collection: drafts });
  const status = (await statusesOf(collection, [_id])).get(record.id) ?? 'draft';
  return { record, status };
}
