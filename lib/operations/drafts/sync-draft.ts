// On a drafts collection, a write to the published record (POST, PATCH, bulk writes, DELETE, a restore
// into the published record) applies the same change to the working copy, in the same session (a recorder
// at the write pipeline's seam, write/stored-change.ts): a create copies the record, an update sets and
// clears the same fields (other pending draft changes stay), a delete removes the copy. Publish and unpublish
// do not: the working copy is their source. A record with no working copy yet (stored before drafts were
// switched on) gets none: its published record is its working copy until a draft is saved.
import type { ChangeRecorder } from '../runtime';
import { deleteRecordAt, replaceRecord, updateRecord } from '../write/store';

/** Mirrors a published record's change into its working copy; nothing for other collections. */
export const syncDraft: ChangeRecorder = async (change, session) => {
  const { drafts, descriptor } = change.collection;
  if (!drafts || descriptor.variant === 'draft') return;
  if (change.versionOp === 'publish' || change.versionOp === 'unpublish') return;
  const row = change.type === 'delete' ? change.before : change.after;
  if (!row) return;
  const filter = { _id: row._id };
  // A soft delete would leave the copy of a record in the trash; drafts and softDelete are refused together.
  if (change.type === 'delete') {
    await deleteRecordAt(drafts, filter, undefined, session);
    return;
  }
  if (change.type === 'create') {
    await replaceRecord(drafts, row, session);
    return;
  }
  const set: Record<string, unknown> = {};
  const unset: Record<string, 1> = {};
  for (const field of change.fields ?? []) {
    if (row[field] === undefined) unset[field] = 1;
    else set[field] = row[field];
  }
  // The published record's stamp: the copy changed when it did.
  if (row.updatedAt !== undefined) set.updatedAt = row.updatedAt;
  await updateRecord(drafts, filter, { $set: set, ...(Object.keys(unset).length > 0 && { $unset: unset }) }, { session, system: { timestamps: false } });
};
