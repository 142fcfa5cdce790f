// `get`: one record, as `GET /<slug>/:id` answers it, with its ETag (what `update` and `delete` take as
// `etag`); `draft: true` reads the working copy, as `GET /<slug>/:id/draft` does (with its `_status`). With
// `global` instead of `collection` and `id`: the global, as `GET /globals/<slug>` (or its `/draft`) answers it.
// The etag is always the whole record's, as a plain GET sends it: a record read with `fields` or `include`
// is another representation, whose tag no write would take, so its etag comes from a plain read.
import { z } from 'zod';
import type { SchemaCollection } from '../../config/caller-schema';
import { NotFoundError, QueryError } from '../../errors';
import { findById } from '../../operations/find-by-id';
import { findDraft } from '../../operations/drafts/find-draft';
import { findGlobalDraft } from '../../operations/drafts/global-drafts';
import { withStatus } from '../../operations/drafts/working-copy';
import { findGlobal } from '../../operations/globals';
import { representationTag } from '../../operations/precondition';
import { parseRecordQuery } from '../../query/index';
import { READS, type ToolContext, defineTool } from '../tool';
import { collectionArgument, operationArgs, queryFor, usableCollections } from '../tool-collection';
import { globalArgs, globalArgument, targetOf, usableGlobals } from '../tool-global';

/** A published record's 404 where a never-published record (a draft only) may be what the caller is after. */
const DRAFT_ONLY = 'No record with this id. It may exist as a draft only, never published: get it with draft: true.';

/** True when `error` is the 404 of a collection with drafts whose drafts the caller may read (to no one else is it said). */
function mayBeDraft(error: unknown, schema: SchemaCollection): boolean {
  return error instanceof NotFoundError && schema.versions?.drafts === true && (schema.access.readDrafts ?? false) !== false;
}

interface GetArgs {
  collection?: string;
  id?: string;
  global?: string;
  fields?: string[];
  include?: string[];
  draft?: boolean;
}

/** A record of a collection and its etag. */
async function getRecord(args: GetArgs & { collection: string; id: string }, context: ToolContext): Promise<object> {
  const { runtime: collection, schema } = collectionArgument(context, args.collection, args.draft ? 'readDrafts' : 'read');
  const options = context.runtime.config.query;
  const shaped = args.fields !== undefined || args.include !== undefined;
  const raw = { ...(args.fields && { fields: args.fields }), ...(args.include && { include: args.include }) };
  const query = await queryFor(context, collection, (descriptor, registry) => parseRecordQuery(raw, descriptor, registry, options));
  const plain = { ...operationArgs(context, collection), id: args.id };
  const base = { ...plain, select: query.select, populate: query.populate };
  if (args.draft) {
    const answer = await findDraft(base);
    // The working copy's tag, as REST sends it: what a draft save's If-Match is compared with.
    const whole = shaped ? await findDraft(plain) : answer;
    return { record: withStatus(answer), etag: representationTag(whole.record) };
  }
  const record = await findById(base).catch((error: unknown) => {
    throw mayBeDraft(error, schema) ? new NotFoundError(DRAFT_ONLY) : error;
  });
  return { record, etag: representationTag(shaped ? await findById(plain) : record) };
}

/** A global and its etag (its working copy's with `draft`); REST's global routes take no fields nor include. */
async function getGlobal(args: GetArgs & { global: string }, context: ToolContext): Promise<object> {
  const global = globalArgument(context, args.global, args.draft ? 'readDrafts' : 'read');
  for (const name of ['fields', 'include'] as const) {
    if (args[name] !== undefined) throw new QueryError('A global is read whole.', [{ field: name, message: 'not taken with global: leave it out', code: 'invalid_argument' }]);
  }
  if (args.draft) {
    const answer = await findGlobalDraft(globalArgs(context, global));
    return { record: withStatus(answer), etag: representationTag(answer.record) };
  }
  const record = await findGlobal(globalArgs(context, global));
  return { record, etag: representationTag(record) };
}

export const getTool = defineTool({
  name: 'get',
  title: 'Get a record or a global',
  annotations: READS,
  description:
    'Reads one record by `collection` and `id`, or a global by `global`, with its `etag` (pass it to `update` or `delete`; it is the whole record\'s even when `fields` or `include` shape the answer). `fields` picks fields; `include` populates relationships; `draft: true` reads the working copy (its etag is what update, saveDraft and publish take where there are drafts).',
  input: z
    .object({
      collection: z.string().optional().describe('The collection slug (see `describe`); with `id`. Leave it out to read a global.'),
      id: z.string().optional().describe('The record id (with `collection`).'),
      global: z.string().optional().describe('A global slug (see `describe`), instead of collection and id.'),
      fields: z.array(z.string()).optional().describe('Only these fields (and id). Records only.'),
      include: z.array(z.string()).optional().describe('Relationship fields to populate. Records only.'),
      draft: z.boolean().optional().describe('true: the working copy (collections and globals with drafts).'),
    })
    .strict(),
  offered: (context) => usableCollections(context, 'read').length > 0 || usableGlobals(context, 'read').length > 0,
  run(args, context) {
    const target = targetOf(args);
    return target.kind === 'global' ? getGlobal({ ...args, global: target.global }, context) : getRecord({ ...args, collection: target.collection, id: target.id }, context);
  },
});
