// `describe`: what the caller may see and do (`GET /schema`'s answer): every collection and global with
// its rights and readable fields, or one of them by slug.
import { z } from 'zod';
import { READS, defineTool } from '../tool';
import { unknownCollection } from '../tool-collection';

export const describeTool = defineTool({
  name: 'describe',
  title: 'Describe the content schema',
  annotations: READS,
  description:
    'The collections and globals you may use, with what you may do on each (read, create, update, delete, publish: true, false or "some" records) and their fields. With `collection`, that collection (or global) only. Read a global with get { global }, write it with update { global }. Start here.',
  input: z.object({ collection: z.string().optional().describe('A collection or global slug: describe only it.') }).strict(),
  offered: (context) => context.schema.collections.length > 0 || context.schema.globals.length > 0,
  run(args, context) {
    const { schema } = context;
    if (args.collection === undefined) return Promise.resolve(schema);
    const found = schema.collections.find((c) => c.slug === args.collection) ?? schema.globals.find((g) => g.slug === args.collection);
    if (found) return Promise.resolve(found);
    const names = [...schema.collections, ...schema.globals].map((c) => c.slug);
    return Promise.reject(unknownCollection(args.collection, 'is not a collection or global you may use', names));
  },
});
