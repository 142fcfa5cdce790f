// A drafts global's working copy (/globals/<slug>/draft): read, save and discard, as a collection record's
// (find-draft.ts, save-draft.ts, discard-draft.ts) but for the one document keyed by the global's slug. A
// global always reads as something (its defaults before the first write): without a working copy, its
// published document (or those defaults) is its working copy.
import { NotFoundError } from '../../errors';
import type { RawDoc } from '../../schema/to-record';
import { checkAccess } from '../access';
import { type GlobalArgs, globalFilter, storedOrDefaults, toGlobalRecord, updateGlobal } from '../globals';
import { withAfterError } from '../after-error';
import { assertTagMatches, conditionalMiss, tagsToMatch } from '../precondition';
import { bodyOf } from '../prepare-input';
import type { OperationArgs } from '../runtime';
import { storeDelete, storeOne, storeUpdate } from '../write/pipeline';
import { publishChange } from '../write/stored-change';
import { resetTo } from './discard-draft';
import { type DraftAnswer, type DraftStatus, draftsOf, ensureWorkingCopy, statusOf } from './working-copy';

/** The same global's working copies runtime in the args, and those args as every operation takes them. */
function onDrafts(args: GlobalArgs): { asGlobal: GlobalArgs; asOperation: OperationArgs } {
  const drafts = draftsOf(args.global);
  const asGlobal = { ...args, global: drafts };
  return { asGlobal, asOperation: { runtime: args.runtime, collection: drafts, user: args.user, req: args.req, overrideAccess: args.overrideAccess, state: args.state, origin: args.origin } };
}

function notFound(args: GlobalArgs): NotFoundError {
  return new NotFoundError(`No global "${args.global.descriptor.slug}".`);
}

/** The global's working copy with its status, under readDrafts (401/403 otherwise, never the published global). */
export function findGlobalDraft(args: GlobalArgs): Promise<DraftAnswer> {
  const { asGlobal, asOperation } = onDrafts(args);
  return withAfterError(asOperation, 'read', async () => {
    const drafts = asGlobal.global;
    const _id = drafts.descriptor.slug;
    const constraint = await checkAccess({ ...asOperation, op: 'read' });
    const filter = await globalFilter(asGlobal, constraint);
    const [copy, published] = await Promise.all([drafts.model.findOne(filter).lean<RawDoc>(), args.global.model.findOne({ _id }).lean<RawDoc>()]);
    if (!copy && (await drafts.model.exists({ _id }))) throw notFound(args);
    // The published document is read under readDrafts's constraint too when it stands in for the copy.
    const shown = copy ?? (published && constraint ? await args.global.model.findOne(filter).lean<RawDoc>() : published);
    const record = await toGlobalRecord(asGlobal, storedOrDefaults(asGlobal, shown, constraint));
    const status: DraftStatus = copy ? statusOf(args.global, copy, published) : 'published';
    return { record: record as DraftAnswer['record'], status };
  });
}

/** Saves the global's working copy (If-Match: the draft's ETag); answers it with its status. */
export async function saveGlobalDraft(args: GlobalArgs & { data: unknown }): Promise<DraftAnswer> {
  const { asGlobal, asOperation } = onDrafts(args);
  // Refused callers make no copy: the rule is asked before (and again by the update).
  await checkAccess({ ...asOperation, op: 'update', data: bodyOf(args.data) });
  await ensureWorkingCopy(args.global, args.global.descriptor.slug);
  await updateGlobal({ ...asGlobal, data: args.data });
  return findGlobalDraft(args);
}

/** Drops the global's unpublished changes: the working copy is the published global (or its defaults) again. */
export function discardGlobalDraft(args: GlobalArgs): Promise<DraftAnswer> {
  const { asGlobal, asOperation } = onDrafts(args);
  return withAfterError(asOperation, 'update', async () => {
    const drafts = asGlobal.global;
    const _id = drafts.descriptor.slug;
    const constraint = await checkAccess({ ...asOperation, op: 'update' });
    const readable = await checkAccess({ ...asOperation, op: 'read' });
    const filter = await globalFilter(asGlobal, constraint);
    const [copy, published] = await Promise.all([drafts.model.findOne(filter).lean<RawDoc>(), args.global.model.findOne({ _id }).lean<RawDoc>()]);
    const tags = tagsToMatch(args.ifMatch);
    if (!copy) {
      if (await drafts.model.exists({ _id })) throw notFound(args);
      if (tags) assertTagMatches(tags, await toGlobalRecord(asGlobal, storedOrDefaults(asGlobal, published, readable)));
      return findGlobalDraft(args);
    }
    if (tags) assertTagMatches(tags, await toGlobalRecord(asGlobal, copy));
    // Never published: the copy goes, and the global's defaults are its working copy again.
    const change = published
      ? await storeOne(asOperation, (session) => storeUpdate(asOperation, { input: resetTo(drafts, published, copy), operation: 'update', filter, stored: copy, session }))
      : await storeOne(asOperation, (session) => storeDelete(asOperation, { filter, stored: copy, session }));
    if (!change) return conditionalMiss(drafts.model.exists(filter), notFound(args));
    publishChange(asOperation, change);
    return findGlobalDraft(args);
  });
}
