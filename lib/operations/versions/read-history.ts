// What every history route does first, and how a version is shown. A version's `doc` is the record as
// stored (hidden fields included), so nothing of it reaches a caller except through the collection's read
// steps for that caller (presentFor: hidden and unreadable fields out, afterRead run), and `changedFields`
// names only fields the caller may read.
//
// Access: `readVersions` (default: the `update` rule), and on a drafts collection `readDrafts` too (its history
// holds its working copies). A `where` either answers is matched against the record
// as its history last stored it (its newest version), so a record outside the rule has no history for the
// caller (404), as its GET has no record; deleted records keep their history and the same check.
import type { Model } from 'mongoose';
import { NotFoundError } from '../../errors';
import type { ApiRecord, RawDoc } from '../../schema/to-record';
import type { StoredVersion, VersionActor, VersionOp } from '../../schema/version-schema';
import { toIsoString } from '../../util/iso-date';
import { checkAccess } from '../access';
import { matchesConstraint } from '../constraint-match';
import { callerView } from '../field-view';
import { presentFor } from '../present-records';
import { toRecordId } from '../record-id';
import type { CollectionRuntime, OperationArgs } from '../runtime';
import { newestVersion } from './record-version';

/** The args of every history operation: the collection (or global) and the record's id (a global: none). */
export interface HistoryArgs extends OperationArgs {
  /** The record's id; ignored for a global (its slug names it). */
  id?: string;
}

/** One version as a list shows it. */
export interface VersionSummary {
  version: number;
  op: VersionOp;
  /** ISO-8601. */
  createdAt: string;
  actor: VersionActor;
  /** The fields the change changed that the caller may read. */
  changedFields: string[];
}

/** One version with the record as it was, shaped for the caller. */
export interface VersionRecord extends VersionSummary {
  doc: Record<string, unknown>;
}

/** A record's history, opened for a caller who may read it. */
export interface OpenHistory {
  model: Model<Record<string, unknown>>;
  /** The `record` key of its versions: the record's ObjectId, or a global's slug. */
  record: unknown;
  /** Its newest version. */
  newest: StoredVersion;
}

/** The history model of a collection, or a 404 saying that it keeps none. */
export function historyModel(collection: CollectionRuntime): Model<Record<string, unknown>> {
  const { versions, descriptor } = collection;
  if (!versions || !descriptor.versions) {
    const what = descriptor.isGlobal ? `the global "${descriptor.slug}"` : `"${descriptor.slug}"`;
    throw new NotFoundError(`Versions are off for ${what}: it keeps no history (its config has no versions option).`);
  }
  return versions;
}

function noHistory(): NotFoundError {
  return new NotFoundError('No versions of this record.');
}

/**
 * Checks `readVersions` (and on a drafts collection `readDrafts`; 401/403), then finds the record's history; a 404 when it has none the caller may
 * read (versions off, a malformed id, no versions, outside the rule's where).
 */
export async function openHistory(args: HistoryArgs): Promise<OpenHistory> {
  const { collection } = args;
  const model = historyModel(collection);
  const record = collection.descriptor.isGlobal ? collection.descriptor.slug : toRecordId(args.id);
  const id = collection.descriptor.isGlobal ? undefined : args.id;
  const constraint = await checkAccess({ ...args, op: 'readVersions', id });
  // A drafts collection's history holds its working copies: whoever reads it reads drafts, so readDrafts too.
  const drafts = collection.drafts ? await checkAccess({ ...args, op: 'readDrafts', id }) : undefined;
  const newest = await newestVersion(model, record);
  if (!newest) throw noHistory();
  for (const rule of [constraint, drafts]) if (rule && !(await matchesConstraint(args, newest.doc, rule))) throw noHistory();
  return { model, record, newest };
}

/** Version `version` of the opened history, or a 404. */
export async function readVersion(history: OpenHistory, version: number): Promise<StoredVersion> {
  if (version === history.newest.version) return history.newest;
  const found = await history.model.findOne({ record: history.record, version }).lean<StoredVersion>();
  if (!found) throw new NotFoundError(`No version ${version} of this record.`);
  return found;
}

/** The names of the fields the caller may read (hidden ones and those its field rules deny are not). */
export async function readableFields(args: OperationArgs): Promise<ReadonlySet<string>> {
  const view = (await callerView(args)).of(args.collection);
  return new Set(Object.values(view.descriptor.fields).filter((field) => !field.hidden && !field.system).map((field) => field.name));
}

/** A version as a list shows it to a caller who reads `readable`. */
export function summarize(version: StoredVersion, readable: ReadonlySet<string>): VersionSummary {
  return {
    version: version.version,
    op: version.op,
    createdAt: toIsoString(new Date(version.createdAt)),
    actor: version.actor,
    changedFields: version.changedFields.filter((name) => readable.has(name)),
  };
}

/** A stored record (a version's doc, the record as it stands) as this caller reads it: the collection's read steps. */
export async function presentDoc(args: OperationArgs, doc: RawDoc): Promise<Record<string, unknown>> {
  const [record] = await presentFor(args, [doc]);
  return args.collection.descriptor.isGlobal ? withoutId(record) : record;
}

/** A global reads as its fields and timestamps: its id is its slug, not part of it. */
function withoutId(record: ApiRecord): Record<string, unknown> {
  const { id: _slug, ...fields } = record;
  return fields;
}
