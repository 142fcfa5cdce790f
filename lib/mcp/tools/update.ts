// The `update` tool: a partial update of one record, by the operation REST's PATCH /<slug>/:id runs, always
// with the record's etag (If-Match): an agent writes over no change it has not read. On a drafts collection
// it saves the working copy, as PATCH /<slug>/:id/draft does, and `etag` is the working copy's. With
// `global` instead of `collection` and `id`, the global, as PATCH /globals/<slug> (on a drafts global its
// draft, as PATCH /globals/<slug>/draft).
import { z } from 'zod';
import { saveDraft } from '../../operations/drafts/save-draft';
import { saveGlobalDraft } from '../../operations/drafts/global-drafts';
import { updateGlobal } from '../../operations/globals';
import { update } from '../../operations/update';
import type { ApiRecord } from '../../schema/to-record';
import { REPLACES, defineTool } from '../tool';
import { operationArgs } from '../tool-collection';
import { globalArgs, globalArgument, targetOf, usableGlobals } from '../tool-global';
import { COLLECTION, comparingWorkingCopy, DATA, draftAnswer, etagPrecondition, offersWrite, refusalsTold, writeTarget, writtenAnswer } from './write-target';

export const updateTool = defineTool({
  name: 'update',
  title: 'Update a record or a global',
  annotations: REPLACES,
  description:
    'Sets the fields `data` names on one record (`collection` and `id`) or on a global (`global`) (null clears a field; others are left as they are) and answers { record, etag }. `etag` is required: the etag as get (or your last write) answered it; if the record changed since, nothing is written (read it again). Where there are drafts this saves the draft (get with draft: true answers its etag); publish makes it public.',
  input: z
    .object({
      collection: COLLECTION.optional(),
      id: z.string().min(1).optional().describe('The record id (24 hex digits), as find, get and create answer it; with `collection`.'),
      global: z.string().min(1).optional().describe('A global slug (see `describe`), instead of collection and id.'),
      // Optional to zod, required by the tool: a missing etag is refused (428) and told to the audit log, as REST's missing If-Match is.
      etag: z.string().optional().describe('Required. The etag as get (or your last write) answered it; where there are drafts, the draft\'s.'),
      data: DATA,
    })
    .strict(),
  offered: (context) => offersWrite(context, 'update') || (context.options.write && usableGlobals(context, 'update').length > 0),
  async run(args, context) {
    const target = targetOf(args);
    const { etag, data } = args;
    if (target.kind === 'global') {
      const global = globalArgument(context, target.global);
      const ifMatch = await etagPrecondition({ args: operationArgs(context, global), action: global.drafts ? 'draft' : 'update' }, etag, true);
      const write = { ...globalArgs(context, global), data, ifMatch };
      const told = { args: operationArgs(context, global), action: global.drafts ? ('draft' as const) : ('update' as const) };
      if (global.drafts) return draftAnswer(await refusalsTold(told, () => comparingWorkingCopy(saveGlobalDraft(write))));
      return writtenAnswer((await refusalsTold(told, () => updateGlobal(write))) as ApiRecord);
    }
    const { id } = target;
    const collection = writeTarget(context, target.collection);
    const base = operationArgs(context, collection);
    const ifMatch = await etagPrecondition({ args: base, action: collection.drafts ? 'draft' : 'update', id }, etag, true);
    if (collection.drafts) return draftAnswer(await refusalsTold({ args: base, action: 'draft', id }, () => comparingWorkingCopy(saveDraft({ ...base, id, data, ifMatch }))));
    return writtenAnswer(await refusalsTold({ args: base, action: 'update', id }, () => update({ ...base, id, data, ifMatch })));
  },
});
