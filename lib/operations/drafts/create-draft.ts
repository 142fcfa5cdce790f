// Creates a record as a working copy only (POST /<slug>?draft=true): the create operation on the drafts
// runtime, so field access, hooks (told `draft: true`), types and unknown fields apply, while `required`
// and `unique` wait for publish. Nothing is published: no public read, subscriber or webhook sees it.
import { type CreateArgs, create } from '../create';
import { type DraftAnswer, draftsOf } from './working-copy';

/** Creates a never-published record; answers its working copy (`draft`). */
export async function createDraft(args: CreateArgs): Promise<DraftAnswer> {
  const record = await create({ ...args, collection: draftsOf(args.collection) });
  return { record, status: 'draft' };
}
