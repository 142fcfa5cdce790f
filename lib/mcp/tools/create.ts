// The `create` tool: one record, by the create operation REST's POST /<slug> runs (access, field write
// rules, hooks, validation, unique values, the audit log). On a drafts collection the record is created as
// a working copy only, as POST /<slug>?draft=true does: nothing is published until `publish`.
import { z } from 'zod';
import { create } from '../../operations/create';
import { createDraft } from '../../operations/drafts/create-draft';
import { ADDS, defineTool } from '../tool';
import { operationArgs } from '../tool-collection';
import { COLLECTION, DATA, draftAnswer, offersWrite, refusalsTold, writeTarget, writtenAnswer } from './write-target';

export const createTool = defineTool({
  name: 'create',
  title: 'Create a record',
  annotations: ADDS,
  description:
    'Creates one record in a collection from `data` (field values by name) and answers { record, etag }: the record as the REST API answers it and its etag (what update, delete and publish take). On a collection with drafts the record is created as a draft only (record._status "draft"): publish makes it public.',
  input: z.object({ collection: COLLECTION, data: DATA }).strict(),
  offered: (context) => offersWrite(context, 'create'),
  async run({ collection: slug, data }, context) {
    const collection = writeTarget(context, slug);
    const args = operationArgs(context, collection);
    if (collection.drafts) return draftAnswer(await refusalsTold({ args, action: 'create' }, () => createDraft({ ...args, data })));
    return writtenAnswer(await refusalsTold({ args, action: 'create' }, () => create({ ...args, data })));
  },
});
