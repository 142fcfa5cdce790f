// Whether a delete of a drafts collection's record left nothing of it: neither its published record nor its
// working copy. What the record owned besides (its preview links, its pending scheduled actions) goes then,
// in the delete's own session: a record created again under its id (a restore from its history) must not
// inherit what was made for what it was.
import type { ClientSession } from 'mongoose';
import type { Runtime, StoredChange } from '../runtime';
import { storedIdOf } from './working-copy';

/** True when `change` is a delete that left neither state of a drafts collection's record (read in `session`). */
export async function goneForGood(runtime: Runtime, change: StoredChange, session: ClientSession | undefined): Promise<boolean> {
  if (change.type !== 'delete') return false;
  const { slug, isGlobal } = change.collection.descriptor;
  const published = (isGlobal ? runtime.globals : runtime.collections).get(slug);
  if (!published?.drafts) return false;
  const _id = storedIdOf(published, change.id);
  if (await published.model.exists({ _id }).session(session ?? null)) return false;
  return !(await published.drafts.model.exists({ _id }).session(session ?? null));
}

/** The collections whose deletes goneForGood answers for: those with working copies. */
export function keepsDrafts(collection: Pick<StoredChange['collection'], 'descriptor'>): boolean {
  return collection.descriptor.versions?.drafts === true;
}
