// The `delete` tool: one record, by the operation REST's DELETE /<slug>/:id runs (soft on soft-delete
// collections: restorable). `etag`, when given, must still be the record's; required where the collection
// says requireIfMatch, as REST's If-Match is.
import { z } from 'zod';
import { deleteRecord } from '../../operations/delete';
import { REPLACES, defineTool } from '../tool';
import { operationArgs } from '../tool-collection';
import { COLLECTION, etagPrecondition, offersWrite, OPTIONAL_ETAG, RECORD_ID, refusalsTold, writeTarget } from './write-target';

export const deleteTool = defineTool({
  name: 'delete',
  title: 'Delete a record',
  annotations: REPLACES,
  description: 'Deletes one record (on a soft-delete collection it is marked deleted and can be restored over REST) and answers { deleted: true }.',
  input: z.object({ collection: COLLECTION, id: RECORD_ID, etag: OPTIONAL_ETAG }).strict(),
  offered: (context) => offersWrite(context, 'delete'),
  async run({ collection: slug, id, etag }, context) {
    const collection = writeTarget(context, slug);
    const args = operationArgs(context, collection);
    const ifMatch = await etagPrecondition({ args, action: 'delete', id }, etag, collection.descriptor.requireIfMatch);
    return refusalsTold({ args, action: 'delete', id }, () => deleteRecord({ ...args, id, ifMatch }));
  },
});
