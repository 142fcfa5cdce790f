// On a drafts collection, a write to the published record (PATCH, bulk writes, create, delete, a restore
// into the published record) applies the same change to the working copy, in the same session (a recorder
// at the write pipeline's seam). Publish and unpublish do not: the working copy is their source.
// TODO(drafts): build it.
import type { ChangeRecorder } from '../runtime';

/** Mirrors a published record's change into its working copy; nothing for other collections. */
export const syncDraft: ChangeRecorder = async () => {};
