// Once a record of a drafts collection is gone for good (neither its published record nor its working copy
// is left), its preview links go too: a record created again under its id (a restore from its history)
// must not reopen links made for what it was. Unpublishing keeps them: the working copy is still there.
// A listener of committed changes (RuntimeHooks.changeCommitted): it never holds the write up, and a
// failure is logged (the links then still expire; a gone record shows nothing meanwhile).
import type { Runtime, StoredChange } from '../runtime';
import { previewTokens } from './preview-tokens';
import { workingCopyRow } from './preview-target';

async function forget(runtime: Runtime, change: StoredChange): Promise<void> {
  const { slug, isGlobal } = change.collection.descriptor;
  const published = (isGlobal ? runtime.globals : runtime.collections).get(slug);
  if (!published?.drafts) return;
  const target = { published, drafts: published.drafts, slug, global: isGlobal, record: change.id };
  if (await workingCopyRow({ runtime, user: null, overrideAccess: true }, target, { projection: { _id: 1 } })) return;
  await previewTokens(runtime.connection).deleteMany({ slug, global: isGlobal, record: change.id });
}

/** Deletes the links of a drafts collection's record that a delete left with no copy at all. */
export function forgetPreviews(change: StoredChange, by: { runtime: Runtime }): void {
  if (change.type !== 'delete' || !change.collection.descriptor.versions?.drafts) return;
  const { runtime } = by;
  forget(runtime, change).catch((error: unknown) => {
    runtime.config.logger.warn(`content-router: the preview links of "${change.collection.descriptor.slug}" ${change.id} could not be removed after it was deleted (they still expire):`, error);
  });
}
