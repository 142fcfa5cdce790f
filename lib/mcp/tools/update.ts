// The `update` tool: a partial update of one record, by the operation REST's PATCH /<slug>/:id runs, always
// with the record's etag (If-Match): an agent writes over no change it has not read. On a drafts collection
// it saves the working copy, as PATCH /<slug>/:id/draft does, and `etag` is the working copy's.
import { z } from 'zod';
import { saveDraft } from '../../operations/drafts/save-draft';
import { update } from '../../operations/update';
import { REPLACES, defineTool } from '../tool';
import { operationArgs } from '../tool-collection';
import { COLLECTION, DATA, RECORD_ID, comparingWorkingCopy, draftAnswer, etagPrecondition, offersWrite, writeTarget, writtenAnswer } from './write-target';

export const updateTool = defineTool({
  name: 'update',
  title: 'Update a record',
  annotations: REPLACES,
  description:
    'Sets the fields `data` names on one record (null clears a field; others are left as they are) and answers { record, etag }. `etag` is required: the record\'s etag as get (or your last write) answered it; if the record changed since, nothing is written (read it again). On a collection with drafts this saves the draft (get with draft: true answers its etag); publish makes it public.',
  input: z
    .object({
      collection: COLLECTION,
      id: RECORD_ID,
      // Optional to zod, required by the tool: a missing etag is refused (428) and told to the audit log, as REST's missing If-Match is.
      etag: z.string().optional().describe('Required. The record\'s etag as get (or your last write) answered it; on a collection with drafts, the draft\'s.'),
      data: DATA,
    })
    .strict(),
  offered: (context) => offersWrite(context, 'update'),
  async run({ collection: slug, id, etag, data }, context) {
    const collection = writeTarget(context, slug);
    const args = operationArgs(context, collection);
    const ifMatch = await etagPrecondition({ args, action: collection.drafts ? 'draft' : 'update', id }, etag, true);
    if (collection.drafts) return draftAnswer(await comparingWorkingCopy(saveDraft({ ...args, id, data, ifMatch })));
    return writtenAnswer(await update({ ...args, id, data, ifMatch }));
  },
});
