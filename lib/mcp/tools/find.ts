// `find`: a page of a collection's records, as `GET /<slug>` answers it in the cursor envelope (agents page
// with `cursor`: the answer's `nextCursor`); `draft: true` lists the working copies, as `?draft=true` does.
import { z } from 'zod';
import { find } from '../../operations/find';
import { findDrafts } from '../../operations/drafts/find-drafts';
import { toListEnvelope } from '../../http/list-envelope';
import { parseListQuery } from '../../query/index';
import { defineTool } from '../tool';
import { collectionArgument, operationArgs, queryFor, usableCollections } from '../tool-collection';

/** The list query of `args`, named as REST's parameters are; always the cursor envelope (`''`: the first page). */
function rawQuery(args: { where?: object; sort?: string | string[]; limit?: number; cursor?: string; fields?: string[]; include?: string[] }): Record<string, unknown> {
  const { where, sort, limit, cursor, fields, include } = args;
  return { cursor: cursor ?? '', ...(where && { where }), ...(sort !== undefined && { sort }), ...(limit !== undefined && { limit }), ...(fields && { fields }), ...(include && { include }) };
}

export const findTool = defineTool({
  name: 'find',
  title: 'Find records',
  description:
    'Lists records of a collection, a page at a time (`nextCursor` is the next page\'s `cursor`). `where` takes the REST where language as an object ({ "title": { "contains": "x" } }); `sort` field names, `-` for descending; `fields` picks fields; `include` populates relationships; `draft: true` lists working copies.',
  input: z
    .object({
      collection: z.string().describe('The collection slug (see `describe`).'),
      where: z.record(z.string(), z.unknown()).optional().describe('Conditions, as REST\'s where ({ field: { operator: value } }).'),
      sort: z.union([z.string(), z.array(z.string())]).optional().describe('Field names; `-field` descending.'),
      limit: z.number().int().min(1).optional().describe('Records per page.'),
      cursor: z.string().optional().describe('The `nextCursor` of the previous page.'),
      fields: z.array(z.string()).optional().describe('Only these fields (and id).'),
      include: z.array(z.string()).optional().describe('Relationship fields to populate.'),
      draft: z.boolean().optional().describe('true: the working copies (drafts collections).'),
    })
    .strict(),
  offered: (context) => usableCollections(context, 'read').length > 0,
  async run(args, context) {
    const { runtime: collection } = collectionArgument(context, args.collection, args.draft ? 'readDrafts' : 'read');
    const options = context.runtime.config.query;
    const query = await queryFor(context, collection, (descriptor, registry) => parseListQuery(rawQuery(args), descriptor, registry, options));
    const base = operationArgs(context, collection);
    const page = args.draft ? await findDrafts({ ...base, query }) : await find({ ...base, query });
    return toListEnvelope(page, query.envelope);
  },
});
