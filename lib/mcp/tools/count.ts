// `count`: how many records match, as `GET /<slug>/count` answers it (`{ total }`).
import { z } from 'zod';
import { count } from '../../operations/count';
import { parseCountQuery } from '../../query/index';
import { READS, defineTool } from '../tool';
import { collectionArgument, operationArgs, queryFor, usableCollections } from '../tool-collection';

export const countTool = defineTool({
  name: 'count',
  title: 'Count records',
  annotations: READS,
  description: 'Counts the records of a collection that match `where` (REST\'s where language, as in `find`).',
  input: z
    .object({
      collection: z.string().describe('The collection slug (see `describe`).'),
      where: z.record(z.string(), z.unknown()).optional().describe('Conditions, as REST\'s where ({ field: { operator: value } }).'),
    })
    .strict(),
  offered: (context) => usableCollections(context, 'read').length > 0,
  async run(args, context) {
    const { runtime: collection } = collectionArgument(context, args.collection, 'read');
    const options = context.runtime.config.query;
    const raw = args.where ? { where: args.where } : {};
    const query = await queryFor(context, collection, (descriptor, registry) => parseCountQuery(raw, descriptor, registry, options));
    return count({ ...operationArgs(context, collection), query, cached: true });
  },
});
