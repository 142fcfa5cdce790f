// What every operation on working copies shares (draft routes, publish, unpublish, scheduled actions): the
// drafts runtime of a collection (a 404 saying drafts are off without one), a record's two states (its working
// copy, its published record: a record stored before drafts were switched on has no copy yet, and then its
// published record is its working copy), a working copy's status and ETag, and the copy a first draft save
// makes of a published record that has none yet.
import { isDeepStrictEqual } from 'node:util';
import type { ClientSession } from 'mongoose';
import { NotFoundError } from '../../errors';
import type { ApiRecord, RawDoc } from '../../schema/to-record';
import { withoutId } from '../globals';
import { presentFor } from '../present-records';
import { assertTagMatches } from '../precondition';
import { toRecordId } from '../record-id';
import { type CollectionRuntime, type OperationArgs, operationArgs } from '../runtime';
import { insertCopy } from '../write/store';

/** Never published; the same as the published record; differs from it. */
export type DraftStatus = 'draft' | 'published' | 'changed';

/** A working copy as the API shows it: the record (its ETag is this record's) and its status beside it. */
export interface DraftAnswer {
  record: ApiRecord;
  status: DraftStatus;
}

/** A working copy as one JSON object: the record with `_status`. */
export type DraftRecord = ApiRecord & { _status: DraftStatus };

/** The record with its `_status`, as answers and the local API give it. */
export function withStatus({ record, status }: DraftAnswer): DraftRecord {
  return { ...record, _status: status };
}

/** The 404 of a draft route on a collection (or global) that keeps no working copies. */
export function draftsOff(descriptor: { slug: string; isGlobal: boolean }): NotFoundError {
  const what = descriptor.isGlobal ? `the ${descriptor.slug} global` : `"${descriptor.slug}"`;
  return new NotFoundError(`Drafts are off for ${what}: it has no working copies (versions: { drafts: true } switches them on).`);
}

/** The working copies' runtime of a drafts collection; a 404 saying drafts are off otherwise. */
export function draftsOf(collection: CollectionRuntime): CollectionRuntime {
  if (!collection.drafts) throw draftsOff(collection.descriptor);
  return collection.drafts;
}

/** A working copy's status against its published record (null: never published). */
export function statusOf(collection: CollectionRuntime, copy: RawDoc, published: RawDoc | null): DraftStatus {
  if (!published) return 'draft';
  return sameFields(collection, copy, published) ? 'published' : 'changed';
}

/**
 * The status of each working copy among `ids` (raw stored ids), by id as the API shows it; a record with no
 * working copy has its published record as one (`published`). Two reads, whatever the number of ids.
 */
export async function statusesOf(collection: CollectionRuntime, ids: readonly unknown[]): Promise<Map<string, DraftStatus>> {
  const drafts = draftsOf(collection);
  const filter = { _id: { $in: ids } };
  const [copies, published] = await Promise.all([drafts.model.find(filter).lean<RawDoc[]>(), collection.model.find(filter).lean<RawDoc[]>()]);
  const byId = new Map(published.map((row) => [String(row._id), row]));
  const statuses = new Map<string, DraftStatus>();
  for (const id of byId.keys()) statuses.set(id, 'published');
  for (const copy of copies) statuses.set(String(copy._id), statusOf(collection, copy, byId.get(String(copy._id)) ?? null));
  return statuses;
}

/**
 * Before a record's first draft save: a published record without a working copy (stored before drafts were
 * switched on) gets one, its exact copy, so the save and its If-Match act on what GET /draft showed.
 */
export async function ensureWorkingCopy(collection: CollectionRuntime, id: unknown, session?: ClientSession): Promise<void> {
  const drafts = draftsOf(collection);
  if (await drafts.model.exists({ _id: id })) return;
  const published = await collection.model.findOne({ _id: id }).lean<RawDoc>();
  // Another save may make it first: its copy stands.
  if (published) await insertCopy(drafts, published, session);
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
  // A global's copy reads without an id (GET /globals/<slug>/draft), and its ETag is that answer's.
  return args.collection.descriptor.isGlobal ? (withoutId(record) as ApiRecord) : record;
}

/** 412 unless the working copy (or, without one, the published record) has one of the tags, as this caller reads it. */
export async function assertDraftMatches(args: OperationArgs, tags: readonly string[], states: RecordStates): Promise<void> {
  assertTagMatches(
    tags,
    // eslint-disable-next-line @typescript-eslint/no-non-null-assertion -- readStates found one of them
    await presentDraft(args, (states.draft ?? states.published)!),
    "If-Match does not match the working copy's ETag (publish and unpublish take the ETag of GET .../draft, not of the published record): the working copy changed since it was read, or the tag is another's. Nothing was written; read the draft again.",
  );
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
