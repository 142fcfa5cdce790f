// Once a record of a drafts collection is gone for good (neither its published record nor its working copy
// is left), its preview links go too: a record created again under its id (a restore from its history)
// must not reopen links made for what it was. Unpublishing keeps them: the working copy is still there.
// A recorder at the write pipeline's seam: the links go in the delete's own session (its transaction where
// the server has them), before the delete answers, so no restore can come between.
import { storedIdOf } from '../drafts/working-copy';
import type { ChangeRecorder } from '../runtime';
import { recorderFor } from '../write/stored-change';
import { previewTokens } from './preview-tokens';

/** Deletes the links of a drafts collection's record that a delete left with no copy at all. */
export const forgetPreviews: ChangeRecorder = recorderFor(
  (collection) => collection.descriptor.versions?.drafts === true,
  async (change, session, { runtime }) => {
    if (change.type !== 'delete') return;
    const { slug, isGlobal } = change.collection.descriptor;
    const published = (isGlobal ? runtime.globals : runtime.collections).get(slug);
    if (!published?.drafts) return;
    const _id = storedIdOf(published, change.id);
    if (await published.model.exists({ _id }).session(session ?? null)) return;
    if (await published.drafts.model.exists({ _id }).session(session ?? null)) return;
    await previewTokens(runtime.connection).deleteMany({ slug, global: isGlobal, record: change.id }, { session });
  },
);
