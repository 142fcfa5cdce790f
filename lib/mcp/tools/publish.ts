// The `publish` tool: a record's working copy becomes its published record, by the operation REST's
// POST /<slug>/:id/publish runs (the publish rule, and create on a first publish; full validation; unique
// values; hooks). `etag` is the working copy's; required where the collection says requireIfMatch. It
// answers the published record, as REST does, with the working copy's etag: the one every later write on
// the record compares (a published record's tag would be refused by the next update).
import { z } from 'zod';
import { publish } from '../../operations/drafts/publish';
import { REPLACES, defineTool } from '../tool';
import { operationArgs } from '../tool-collection';
import { COLLECTION, OPTIONAL_ETAG, RECORD_ID, etagPrecondition, offersWrite, workingCopyEtag, writeTarget } from './write-target';

export const publishTool = defineTool({
  name: 'publish',
  title: 'Publish a draft',
  annotations: REPLACES,
  description:
    "Publishes a record's draft on a collection with drafts: it becomes the public record, checked in full (required fields, unique values). Answers { record, etag }: the published record, and the etag of its working copy (what the next update, saveDraft or publish takes). An unchanged draft writes nothing.",
  input: z.object({ collection: COLLECTION, id: RECORD_ID, etag: OPTIONAL_ETAG }).strict(),
  offered: (context) => offersWrite(context, 'publish', true),
  async run({ collection: slug, id, etag }, context) {
    const collection = writeTarget(context, slug, true);
    const args = operationArgs(context, collection);
    const ifMatch = await etagPrecondition({ args, action: 'publish', id }, etag, collection.descriptor.requireIfMatch);
    const record = await publish({ ...args, id, ifMatch });
    return { record, etag: await workingCopyEtag(args, id) };
  },
});
