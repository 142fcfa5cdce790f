// The `saveDraft` tool: saves a record's working copy on a drafts collection, by the operation REST's
// PATCH /<slug>/:id/draft runs (field access, hooks told `draft: true`, types and unknown fields; required
// fields and unique values wait for publish). `etag` is the working copy's, always required: an
// agent overwrites no change it has not read.
import { z } from 'zod';
import { saveDraft } from '../../operations/drafts/save-draft';
import { REPLACES, defineTool } from '../tool';
import { operationArgs } from '../tool-collection';
import { COLLECTION, comparingWorkingCopy, DATA, DRAFT_ETAG, draftAnswer, etagPrecondition, offersWrite, RECORD_ID, refusalsTold, writeTarget } from './write-target';

export const saveDraftTool = defineTool({
  name: 'saveDraft',
  title: 'Save a draft',
  annotations: REPLACES,
  description:
    "Saves `data` into a record's draft (working copy) on a collection with drafts, without publishing it, and answers { record, etag } (record._status: draft, published or changed). Required fields and unique values are checked when it is published.",
  input: z.object({ collection: COLLECTION, id: RECORD_ID, data: DATA, etag: DRAFT_ETAG }).strict(),
  offered: (context) => offersWrite(context, 'update', true),
  async run({ collection: slug, id, data, etag }, context) {
    const collection = writeTarget(context, slug, true);
    const args = operationArgs(context, collection);
    const ifMatch = await etagPrecondition({ args, action: 'draft', id }, etag, true);
    return draftAnswer(await refusalsTold({ args, action: 'draft', id }, () => comparingWorkingCopy(saveDraft({ ...args, id, data, ifMatch }))));
  },
});
