// What the write tools share: whether a caller is offered one, the collection a call names (one of the
// caller's schema, or a tool error naming `collection`), the `etag` argument read as REST reads If-Match,
// and the `{ record, etag }` answer of a write (the ETag REST would send with the same answer).
import { z } from 'zod';
import type { CollectionPermissions, SchemaCollection } from '../../config/caller-schema';
import { InvalidHeaderError, PreconditionFailedError, PreconditionRequiredError } from '../../errors';
import { type DraftAnswer, presentDraft, readStates, withStatus } from '../../operations/drafts/working-copy';
import { type IfMatch, parseIfMatch, representationTag } from '../../operations/precondition';
import { refusalsNoted } from '../../operations/refused-write';
import type { CollectionRuntime, OperationArgs, RefusedWriteAction } from '../../operations/runtime';
import { isRepresentation } from '../../operations/write-answer';
import type { ApiRecord } from '../../schema/to-record';
import type { ToolContext } from '../tool';
import { draftsOffRefusal, unknownCollection, usableCollections } from '../tool-collection';

/** The `collection` argument of every write tool. */
export const COLLECTION = z.string().min(1).describe('The collection slug (describe lists those you may use).');
/** The `id` argument: a record id as find and get answer it. */
export const RECORD_ID = z.string().min(1).describe('The record id (24 hex digits), as find, get and create answer it.');
/** A record's field values, as REST takes them in a body. */
export const DATA = z.record(z.string(), z.unknown()).describe('Field values by field name, as the REST API takes them in a JSON body (describe lists the fields you may set).');
/** An `etag` argument, where the collection decides whether it is required. */
/** The etag of the working copy a draft write replaces: required, so an agent overwrites or publishes no change it has not read. */
export const DRAFT_ETAG = z
  .string()
  .optional()
  .describe("Required. The working copy's etag as get with draft: true (or your last write) answered it: the write is made only if the draft is still as read.");

export const OPTIONAL_ETAG = z
  .string()
  .optional()
  .describe("The record's etag as get (or the last write) answered it: the write is made only if the record is still as read. Required where the collection says requireIfMatch.");

/** The write rights a tool may need on its collection. */
export type WriteRight = keyof Pick<CollectionPermissions, 'create' | 'update' | 'delete' | 'publish'>;

/** True when `write` is on and some collection the caller sees grants it `right` (on drafts collections only, with `drafts`). */
export function offersWrite(context: ToolContext, right: WriteRight, drafts = false): boolean {
  // Editing a drafts collection saves its working copy, which the save reads: readDrafts too, as REST checks.
  const usable = (c: SchemaCollection) => !(right === 'update' && c.versions?.drafts === true) || c.access.readDrafts !== false;
  return context.options.write && usableCollections(context, right).some((c) => (!drafts || c.versions?.drafts === true) && usable(c));
}

/**
 * The collection `slug` names, if the caller's schema shows it (with `drafts`: and it keeps working
 * copies); else a refusal naming `collection` and what it may use. Unlike the read tools, a collection whose
 * rule refuses this write is not refused here: the operation refuses it (401, 403), and the audit log hears
 * of it, as it does of REST's.
 */
export function writeTarget(context: ToolContext, slug: string, drafts = false): CollectionRuntime {
  const usable = usableCollections(context).filter((c) => !drafts || c.versions?.drafts === true);
  const collection = usable.some((c) => c.slug === slug) ? context.runtime.collections.get(slug) : undefined;
  if (collection) return collection;
  if (drafts && usableCollections(context).some((c) => c.slug === slug)) throw draftsOffRefusal(slug, 'collection', usable);
  throw unknownCollection(slug, drafts ? 'is not a collection with drafts you can see' : 'is not a collection you can see', usable.map((c) => c.slug));
}

/**
 * Runs a write tool's operation, telling the audit log of a refusal the operation did not tell itself (one
 * decided before it starts, as a draft save's access check), as REST's write routes do.
 */
export function refusalsTold<T>(write: { args: OperationArgs; action: RefusedWriteAction; id?: string }, work: () => Promise<T>): Promise<T> {
  return refusalsNoted({ ...write.args, action: write.action, id: write.id }, work);
}

/** An etag as tools answer it (`"…"`); a bare tag (an agent that dropped the quotes) is the same tag quoted. */
function quoted(etag: string): string {
  const trimmed = etag.trim();
  return /^[\x21\x23-\x7e\x80-\xff]+$/.test(trimmed) && trimmed !== '*' ? `"${trimmed}"` : etag;
}

/**
 * The If-Match of a write from its `etag` argument (a 400 naming it when malformed). `required` (the update
 * tool always, others where the collection requires it): without one, a 428 naming `etag`, told to the
 * audit log as REST's missing If-Match is; `*` is no etag there (it would write over any change).
 */
export async function etagPrecondition(write: { args: OperationArgs; action: RefusedWriteAction; id?: string }, etag: string | undefined, required: boolean): Promise<IfMatch | undefined> {
  if (etag === undefined) {
    if (!required) return undefined;
    const refuse = () => Promise.reject(new PreconditionRequiredError('This write needs the etag of the record as you read it (get answers it): pass it as etag.'));
    return refusalsNoted({ ...write.args, action: write.action, id: write.id }, refuse);
  }
  const ifMatch = parseIfMatch(quoted(etag));
  if (required && ifMatch === '*') throw new InvalidHeaderError('If-Match', 'must be the etag of the record as you read it, not *.');
  return ifMatch;
}

/** A write's answer: the record as REST answers it, and its ETag when the answer is the record's representation. */
export function writtenAnswer(record: ApiRecord): { record: ApiRecord; etag?: string } {
  return isRepresentation(record) ? { record, etag: representationTag(record) } : { record };
}

/** A working copy's answer: the copy with its `_status`, as REST answers it, and its ETag (what a draft save or a publish compares `etag` with). */
export function draftAnswer(answer: DraftAnswer): { record: ApiRecord; etag: string } {
  return { record: withStatus(answer), etag: representationTag(answer.record) };
}

/**
 * The working copy's etag of record `id` (without a copy yet, its published record's), as this caller reads
 * it: what the next update, saveDraft or publish on a drafts collection compares `etag` with.
 */
export async function workingCopyEtag(args: OperationArgs, id: string): Promise<string> {
  const { draft, published } = await readStates(args.collection, id);
  // eslint-disable-next-line @typescript-eslint/no-non-null-assertion -- readStates found one of them
  return representationTag(await presentDraft(args, (draft ?? published)!));
}

/** A drafts collection's write, whose 412 says which etag it takes: the working copy's, not the published record's. */
export async function comparingWorkingCopy<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (error) {
    if (!(error instanceof PreconditionFailedError)) throw error;
    throw new PreconditionFailedError(
      "The etag is not the working copy's: on a collection with drafts, writes compare the etag of the working copy (get with draft: true answers it, as does every write's answer), not the published record's. The draft changed since it was read, or the etag is another's; nothing was written. Read it again with get (draft: true) and retry.",
    );
  }
}
