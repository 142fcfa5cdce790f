// Restore: a version's field values written back through the ordinary write pipeline, as a new version with
// `op: 'restore'` (the version itself stays as it was). Field update access, hooks, validation, unique values
// and If-Match all apply as on any update: the values that differ from the record as it stands are the body
// of an update. A record deleted for good is created again with its id (its create rule applies too). On a
// drafts collection the values go into the working copy, unless `publish` (then into the published record,
// which brings its working copy along, and the `publish` rule applies too).
//
// Hidden fields are written back only by callers who may write them (server code with access overridden);
// for the others they keep their current values.
import { isDeepStrictEqual } from 'node:util';
import { NotFoundError, PreconditionFailedError } from '../../errors';
import type { ApiRecord, RawDoc } from '../../schema/to-record';
import { checkAccess } from '../access';
import { create } from '../create';
import { updateGlobal } from '../globals';
import type { IfMatch } from '../precondition';
import { type CollectionRuntime, type WriteArgs, operationArgs } from '../runtime';
import { update } from '../update';
import { type VersionArgs, versionNumberOf } from './find-version';
import { openHistory, readVersion } from './read-history';

export interface RestoreVersionArgs extends VersionArgs, Omit<WriteArgs, 'collection'> {
  /** Drafts collections: restore into the published record rather than the working copy. Default false. */
  publish?: boolean;
  /** Write only if the record written (the working copy, on a drafts collection) has one of these ETags as this caller reads it. */
  ifMatch?: IfMatch;
}

/** Restores version `version` of the record; answers the record written (a global: its fields). Needs `readVersions` and `update`. */
export async function restoreVersion(args: RestoreVersionArgs): Promise<ApiRecord | Record<string, unknown>> {
  const history = await openHistory(args);
  const version = await readVersion(history, versionNumberOf(args));
  const { collection } = args;
  const target = collection.drafts && !args.publish ? collection.drafts : collection;
  // Writing the published record of a drafts collection is publishing: its rule too.
  if (collection.drafts && args.publish) await checkAccess({ ...args, op: 'publish', id: collection.descriptor.isGlobal ? undefined : args.id });
  const base = { ...operationArgs(args), collection: target, trusted: args.trusted, versionOp: 'restore' as const };
  const current = await target.model.findOne({ _id: history.record }).lean<RawDoc>();
  if (collection.descriptor.isGlobal) {
    const data = valuesToRestore(target, version.doc, current ?? {}, args.trusted === true);
    return updateGlobal({ ...base, global: target, data, ifMatch: args.ifMatch });
  }
  const id = String(history.record);
  if (current?.deletedAt) throw new NotFoundError('This record is in the trash: restore it (POST /<slug>/:id/restore) before restoring one of its versions.');
  if (current) return update({ ...base, id, data: valuesToRestore(target, version.doc, current, args.trusted === true), ifMatch: args.ifMatch });
  // Gone for good (or, on a drafts collection, without a working copy yet): created again under its id.
  if (args.ifMatch !== undefined) throw new PreconditionFailedError();
  const data = valuesToRestore(target, version.doc, undefined, args.trusted === true);
  await checkAccess({ ...base, op: 'update', id, data });
  return create({ ...base, id, data });
}

/**
 * The body that makes `current` hold the version's values: each field whose value differs (null clears
 * one the version had no value for). Without a current record, every value the version had.
 */
function valuesToRestore(target: CollectionRuntime, versionDoc: RawDoc, current: RawDoc | undefined, trusted: boolean): Record<string, unknown> {
  const wanted = target.serializeAll(versionDoc);
  const now = current && target.serializeAll(current);
  const data: Record<string, unknown> = {};
  for (const field of Object.values(target.descriptor.fields)) {
    if (field.system || (field.hidden && !trusted)) continue;
    const value = wanted[field.name] ?? null;
    if (now ? !isDeepStrictEqual(value, now[field.name] ?? null) : value !== null) data[field.name] = value;
  }
  return data;
}
