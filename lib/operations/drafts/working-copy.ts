// What every operation on working copies shares: the drafts runtime of a collection (a 404 saying drafts are
// off without one), a working copy's status against its published record, and the copy a first draft save
// makes of a published record that has none yet (one stored before drafts were switched on).
import { isDeepStrictEqual } from 'node:util';
import type { ClientSession } from 'mongoose';
import { NotFoundError } from '../../errors';
import type { ApiRecord, RawDoc } from '../../schema/to-record';
import type { CollectionRuntime } from '../runtime';
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

/** The stored fields a status compares: every declared field, hidden ones too, not the system stamps. */
function compared(collection: CollectionRuntime): string[] {
  return Object.values(collection.descriptor.fields)
    .filter((f) => !f.system)
    .map((f) => f.name);
}

/** A working copy's status against its published record (null: never published). */
export function statusOf(collection: CollectionRuntime, copy: RawDoc, published: RawDoc | null): DraftStatus {
  if (!published) return 'draft';
  // Compared as serialized (ids as hex, dates as ISO text): the values, not the driver's objects.
  const a = collection.serializeAll(copy);
  const b = collection.serializeAll(published);
  return compared(collection).every((name) => isDeepStrictEqual(a[name], b[name])) ? 'published' : 'changed';
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
