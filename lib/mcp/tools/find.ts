// `find`: a page of a collection's records, as `GET /<slug>` answers it in the cursor envelope (agents page
// with `cursor`: the answer's `nextCursor`); `draft: true` lists the working copies, as `?draft=true` does.
import { z } from 'zod';
import { find } from '../../operations/find';
import { findDrafts } from '../../operations/drafts/find-drafts';
import { toListEnvelope } from '../../http/list-envelope';
import { parseListQuery } from '../../query/index';
import { READS, defineTool } from '../tool';
import { collectionArgument, operationArgs, queryFor, usableCollections } from '../tool-collection';

/** The REST list parameters a `find` takes, each under its REST name. */
const LIST_PARAMS = ['where', 'sort', 'limit', 'fields', 'include', 'search', 'includeDeleted'] as const;

/** The list query of `args`, named as REST's parameters are; always the cursor envelope (`''`: the first page). */
function rawQuery(args: Partial<Record<(typeof LIST_PARAMS)[number] | 'cursor', unknown>>): Record<string, unknown> {
  const given = LIST_PARAMS.filter((name) => args[name] !== undefined).map((name): [string, unknown] => [name, args[name]]);
  return { cursor: args.cursor ?? '', ...(Object.fromEntries(given) as Record<string, unknown>) };
}

export const findTool = defineTool({
  name: 'find',
  title: 'Find records',
  annotations: READS,
  description:
    'Lists records of a collection, a page at a time (for the next page, repeat the call with `nextCursor` as `cursor`). `where` takes the REST where language as an object ({ "title": { "contains": "x" } }); `sort` field names, `-` for descending; `fields` picks fields; `include` populates relationships; `search` finds text in the collection\'s search fields; `includeDeleted: true` lists soft-deleted records too; `draft: true` lists working copies.',
  input: z
    .object({
      collection: z.string().describe('The collection slug (see `describe`).'),
      where: z.record(z.string(), z.unknown()).optional().describe('Conditions, as REST\'s where ({ field: { operator: value } }).'),
      sort: z.union([z.string(), z.array(z.string())]).optional().describe('Field names; `-field` descending.'),
      limit: z.number().int().min(1).optional().describe('Records per page.'),
      cursor: z.string().optional().describe('The `nextCursor` of the previous page, sent with the same where, sort and limit as the call that answered it.'),
      fields: z.array(z.string()).optional().describe('Only these fields (and id).'),
      include: z.array(z.string()).optional().describe('Relationship fields to populate.'),
      search: z.string().optional().describe('Text to find (case-insensitive) in the collection\'s search fields, as REST\'s search parameter.'),
      includeDeleted: z.boolean().optional().describe('true: soft-deleted records too (soft-delete collections; needs the delete right).'),
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
