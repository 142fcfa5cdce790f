// What changed between a version and another state of the record: the version before it (default),
// another version, the record as it stands (`current`), or its working copy (`draft`). Both sides pass the
// caller's read steps first, so a change shows only fields the caller may read, with the values it would
// read; system fields (timestamps) are not changes of content.
import { isDeepStrictEqual } from 'node:util';
import { NotFoundError, QueryError } from '../../errors';
import type { VersionAgainst } from '../../query/parse-version-query';
import type { RawDoc } from '../../schema/to-record';
import type { StoredVersion } from '../../schema/version-schema';
import type { CollectionRuntime } from '../runtime';
import { versionNumberOf, type VersionArgs } from './find-version';
import { type OpenHistory, openHistory, presentDoc, readVersion, readableFields } from './read-history';

export interface DiffVersionArgs extends VersionArgs {
  /** The other side; default: the version before `version` (none for the first: every value was null before). */
  against?: VersionAgainst;
}

/** One field's change: its value on the `from` side and on the `to` side (null where it had none). */
export interface FieldChange {
  field: string;
  before: unknown;
  after: unknown;
}

export interface VersionDiff {
  /** The other side: a version number, `current` or `draft`; null before the first version. */
  from: number | 'current' | 'draft' | null;
  /** The version. */
  to: number;
  changes: FieldChange[];
}

/** The diff of version `version` against `against`, readable fields only; needs `readVersions`. */
export async function diffVersion(args: DiffVersionArgs): Promise<VersionDiff> {
  const { collection } = args;
  const history = await openHistory(args);
  if (args.against?.kind === 'draft' && !collection.drafts) throw new QueryError('against: draft: this collection has no drafts (versions.drafts is off).', [{ field: 'against', message: 'this collection has no drafts', code: 'invalid_value' }]);
  const to = await readVersion(history, versionNumberOf(args));
  const from = await otherSide(args, history, to);
  const readable = await readableFields(args);
  const [before, after] = await Promise.all([from.doc ? presentDoc(args, from.doc) : Promise.resolve<Record<string, unknown>>({}), presentDoc(args, to.doc)]);
  const fields = Object.values(collection.descriptor.fields).filter((field) => readable.has(field.name)).map((field) => field.name);
  const changes = fields
    .filter((field) => Object.hasOwn(before, field) || Object.hasOwn(after, field))
    .map((field) => ({ field, before: before[field] ?? null, after: after[field] ?? null }))
    .filter((change) => !isDeepStrictEqual(change.before, change.after));
  return { from: from.name, to: to.version, changes };
}

/** The `from` side: its name and the stored record there (none before the first version). */
async function otherSide(args: DiffVersionArgs, history: OpenHistory, to: StoredVersion): Promise<{ name: VersionDiff['from']; doc?: RawDoc }> {
  const { against } = args;
  if (!against) {
    const previous = await history.model.findOne({ record: history.record, version: { $lt: to.version } }).sort({ version: -1 }).lean<StoredVersion>();
    return previous ? { name: previous.version, doc: previous.doc } : { name: null };
  }
  if (against.kind === 'version') return { name: against.version, doc: (await readVersion(history, against.version)).doc };
  // eslint-disable-next-line @typescript-eslint/no-non-null-assertion -- checked above: `draft` only with drafts
  const source: CollectionRuntime = against.kind === 'draft' ? args.collection.drafts! : args.collection;
  let doc = await source.model.findOne({ _id: history.record }).lean<RawDoc>();
  // A record without a working copy (made before drafts were on) has its published record as one.
  if (!doc && against.kind === 'draft') doc = await args.collection.model.findOne({ _id: history.record }).lean<RawDoc>();
  if (!doc) throw new NotFoundError(against.kind === 'draft' ? 'This record has no working copy.' : 'This record has no current state (it was deleted, or never published).');
  return { name: against.kind, doc };
}
