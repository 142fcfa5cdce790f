// One version of a record, with the record as it was, shaped for the caller (its read steps).
import { NotFoundError } from '../../errors';
import { parseVersionNumber } from '../../query/parse-version-query';
import { type HistoryArgs, type VersionRecord, openHistory, presentDoc, readVersion, readableFields, summarize } from './read-history';

export interface VersionArgs extends HistoryArgs {
  /** The version's number (a path segment as it came: anything but an integer >= 1 names no version, a 404). */
  version: number | string;
}

/** The version's number, or a 404: no version has another name. */
export function versionNumberOf(args: VersionArgs): number {
  const version = parseVersionNumber(args.version);
  if (version === undefined) throw new NotFoundError('No such version of this record (versions are numbered 1, 2, 3...).');
  return version;
}

/** Version `version` of the record, its `doc` as this caller reads records; needs `readVersions`. */
export async function findVersion(args: VersionArgs): Promise<VersionRecord> {
  const history = await openHistory(args);
  const found = await readVersion(history, versionNumberOf(args));
  const [readable, doc] = await Promise.all([readableFields(args), presentDoc(args, found.doc)]);
  return { ...summarize(found, readable), doc };
}
