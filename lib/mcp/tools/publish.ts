// The `publish` tool: a record's working copy becomes its published record, by the operation REST's
// POST /<slug>/:id/publish runs (the publish rule, and create on a first publish; full validation; unique
// values; hooks). `etag` is the working copy's; required where the collection says requireIfMatch.
import { z } from 'zod';
import { publish } from '../../operations/drafts/publish';
import { defineTool } from '../tool';
import { operationArgs } from '../tool-collection';
import { COLLECTION, OPTIONAL_ETAG, RECORD_ID, ifMatchOf, offersWrite, writeTarget, writtenAnswer } from './write-target';

export const publishTool = defineTool({
  name: 'publish',
  title: 'Publish a draft',
  description:
    "Publishes a record's draft on a collection with drafts: it becomes the public record, checked in full (required fields, unique values). Answers { record, etag } with the published record. An unchanged draft writes nothing.",
  input: z.object({ collection: COLLECTION, id: RECORD_ID, etag: OPTIONAL_ETAG }).strict(),
  offered: (context) => offersWrite(context, 'publish', true),
  async run({ collection: slug, id, etag }, context) {
    const collection = writeTarget(context, slug, true);
    const args = operationArgs(context, collection);
    const ifMatch = await ifMatchOf({ args, action: 'publish', id }, etag, collection.descriptor.requireIfMatch);
    return writtenAnswer(await publish({ ...args, id, ifMatch }));
  },
});
