// Once a record of a drafts collection is gone for good (neither its published record nor its working copy
// is left), its preview links go too: a record created again under its id (a restore from its history)
// must not reopen links made for what it was. Unpublishing keeps them: the working copy is still there.
// A recorder at the write pipeline's seam: the links go in the delete's own session (its transaction where
// the server has them), before the delete answers, so no restore can come between.
import { goneForGood, keepsDrafts } from '../drafts/gone-for-good';
import type { ChangeRecorder } from '../runtime';
import { recorderFor } from '../write/stored-change';
import { previewTokens } from './preview-tokens';

/** Deletes the links of a drafts collection's record that a delete left with no copy at all. */
export const forgetPreviews: ChangeRecorder = recorderFor(keepsDrafts, async (change, session, { runtime }) => {
  if (!(await goneForGood(runtime, change, session))) return;
  const { slug, isGlobal } = change.collection.descriptor;
  await previewTokens(runtime.connection).deleteMany({ slug, global: isGlobal, record: change.id }, { session });
});
