// The `publish` tool: a record's working copy becomes its published record, by the operation REST's
// POST /<slug>/:id/publish runs (the publish rule, and create on a first publish; full validation; unique
// values; hooks); with `global` instead of `collection` and `id`, a drafts global's, as POST
// /globals/<slug>/publish. `etag` is the working copy's, always required: an agent
// publishes no change it has not read. It answers the published record, as REST does, with the working copy's etag: the one
// every later write on the record compares (a published record's tag would be refused by the next update).
import { z } from 'zod';
import { publish } from '../../operations/drafts/publish';
import type { CollectionRuntime } from '../../operations/runtime';
import { REPLACES, type ToolContext, defineTool } from '../tool';
import { draftsOffRefusal, operationArgs } from '../tool-collection';
import { globalArgument, targetOf, usableGlobals } from '../tool-global';
import { COLLECTION, comparingWorkingCopy, DRAFT_ETAG, etagPrecondition, offersWrite, refusalsTold, workingCopyEtag, writeTarget } from './write-target';

/** The global `slug` names, if the caller sees it and it keeps drafts; else a refusal naming `global`. */
function draftsGlobal(context: ToolContext, slug: string): CollectionRuntime {
  const global = globalArgument(context, slug);
  if (global.drafts) return global;
  throw draftsOffRefusal(slug, 'global', usableGlobals(context));
}

export const publishTool = defineTool({
  name: 'publish',
  title: 'Publish a draft',
  annotations: REPLACES,
  description:
    "Publishes a record's draft on a collection with drafts (`collection` and `id`), or a global's (`global`): it becomes the public record, checked in full (required fields, unique values). Answers { record, etag }: the published record, and the etag of its working copy (what the next update, saveDraft or publish takes). An unchanged draft writes nothing.",
  input: z
    .object({
      collection: COLLECTION.optional(),
      id: z.string().min(1).optional().describe('The record id, as find, get and create answer it; with `collection`.'),
      global: z.string().min(1).optional().describe('A global slug with drafts (see `describe`), instead of collection and id.'),
      etag: DRAFT_ETAG,
    })
    .strict(),
  offered: (context) => offersWrite(context, 'publish', true) || (context.options.write && usableGlobals(context, 'publish').some((g) => g.versions?.drafts === true)),
  async run(args, context) {
    const target = targetOf(args);
    const collection = target.kind === 'global' ? draftsGlobal(context, target.global) : writeTarget(context, target.collection, true);
    const id = target.kind === 'global' ? target.global : target.id;
    const base = operationArgs(context, collection);
    const ifMatch = await etagPrecondition({ args: base, action: 'publish', ...(target.kind === 'record' && { id }) }, args.etag, true);
    const record = await refusalsTold({ args: base, action: 'publish', ...(target.kind === 'record' && { id }) }, () => comparingWorkingCopy(publish({ ...base, id, ifMatch })));
    return { record, etag: await workingCopyEtag(base, id) };
  },
});
