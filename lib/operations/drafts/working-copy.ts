// What publish, unpublish and a scheduled action read of a record on a drafts collection: its working copy
// (a row of `<slug>_drafts` with the record's `_id`; a record stored before drafts were switched on has
// none yet, and then its published record is its working copy), its published record, and the draft's
// ETag: the hash of the working copy as this caller reads it through the drafts runtime.
import { isDeepStrictEqual } from 'node:util';
import { NotFoundError } from '../../errors';
import type { ApiRecord, RawDoc } from '../../schema/to-record';
import { presentFor } from '../present-records';
import { assertTagMatches } from '../precondition';
import { toRecordId } from '../record-id';
import { type CollectionRuntime, type OperationArgs, operationArgs } from '../runtime';

/** A drafts collection's working copies, or the 404 every draft route of a collection without drafts answers. */
export function draftsOf(collection: CollectionRuntime): CollectionRuntime {
  if (!collection.drafts) {
    const { slug, isGlobal } = collection.descriptor;
    throw new NotFoundError(`Drafts are off for the ${isGlobal ? 'global' : 'collection'} "${slug}": it has no working copies to publish (versions: { drafts: true } turns them on).`);
  }
  return collection.drafts;
}

/** The stored `_id` a path id names: a global's slug, else an ObjectId (a malformed one is a 404). */
export function storedIdOf(collection: CollectionRuntime, id: string): unknown {
  return collection.descriptor.isGlobal ? collection.descriptor.slug : toRecordId(id);
}

/** A record's two states: its working copy's row (absent when it has none yet) and its published row. */
export interface RecordStates {
  _id: unknown;
  draft: RawDoc | null;
  published: RawDoc | null;
}

/** Reads both states of the record; neither is a 404. */
export async function readStates(collection: CollectionRuntime, id: string): Promise<RecordStates> {
  const drafts = draftsOf(collection);
  const _id = storedIdOf(collection, id);
  const [draft, published] = await Promise.all([drafts.model.findOne({ _id }).lean<RawDoc>(), collection.model.findOne({ _id }).lean<RawDoc>()]);
  if (!draft && !published) throw new NotFoundError(collection.descriptor.isGlobal ? `The global "${collection.descriptor.slug}" has no working copy.` : 'No record with this id.');
  return { _id, draft, published };
}

/** The working copy as this caller reads it through the drafts runtime: what its ETag is the hash of. */
export async function presentDraft(args: OperationArgs, row: RawDoc): Promise<ApiRecord> {
  // eslint-disable-next-line @typescript-eslint/no-non-null-assertion -- called on drafts collections only (draftsOf first)
  const [record] = await presentFor({ ...operationArgs(args), collection: args.collection.drafts! }, [row]);
  return record;
}

/** 412 unless the working copy (or, without one, the published record) has one of the tags, as this caller reads it. */
export async function assertDraftMatches(args: OperationArgs, tags: readonly string[], states: RecordStates): Promise<void> {
  // eslint-disable-next-line @typescript-eslint/no-non-null-assertion -- readStates found one of them
  assertTagMatches(tags, await presentDraft(args, (states.draft ?? states.published)!));
}

/** The record's own field values (no id, timestamps nor revision), as JSON shows them: a body to publish, or to compare. */
export function fieldValues(collection: CollectionRuntime, row: RawDoc): Record<string, unknown> {
  const all = collection.serializeAll(row);
  const values: Record<string, unknown> = {};
  for (const field of Object.values(collection.descriptor.fields)) {
    if (!field.system && all[field.name] !== undefined && all[field.name] !== null) values[field.name] = all[field.name];
  }
  return values;
}

/** True when the two rows hold the same field values (JSON-equal): publishing one over the other changes nothing. */
export function sameFields(collection: CollectionRuntime, a: RawDoc, b: RawDoc): boolean {
  return isDeepStrictEqual(json(fieldValues(collection, a)), json(fieldValues(collection, b)));
}

/** A value as its JSON reads back (ObjectIds as hex, dates as ISO strings): stored values compared by meaning. */
export function json(value: unknown): unknown {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}
