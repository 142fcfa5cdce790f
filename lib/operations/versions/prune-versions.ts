// Retention of a record's history (`versions.max`, `versions.maxAge`): after a change is committed, the
// record's versions beyond the newest `max`, and those older than `maxAge`, are removed. The newest version
// and the newest one that was the published state are always kept. It runs after the commit, never holding
// the write up nor rolling it back: a failure is logged, and the next change of the record tries again.
import type { Model } from 'mongoose';
import type { ResolvedVersions } from '../../schema/descriptors';
import type { StoredVersion } from '../../schema/version-schema';
import { toLoggableError } from '../../util/loggable-error';
import type { OperationArgs, StoredChange } from '../runtime';
import { recordedVersion } from './record-version';

/** A changeCommitted listener: starts the retention of the changed record's history when it may have any work. */
export function pruneVersions(change: StoredChange, by: Pick<OperationArgs, 'runtime'>): void {
  const { collection } = change;
  const history = collection.versions;
  const options = collection.descriptor.versions;
  const number = recordedVersion(change);
  if (!history || !options || number === undefined) return;
  // Numbers are never reused, so a record whose newest is at most `max` has at most `max` versions.
  if (!(options.max > 0 && number > options.max) && options.maxAgeMs === undefined) return;
  const record = (change.type === 'delete' ? change.before : change.after)?._id;
  const { config } = by.runtime;
  prune(history, record, options, config.clock.now()).catch((error: unknown) => {
    config.logger.error(`content-router: could not remove old versions of a record of "${collection.descriptor.slug}" (retention runs again on its next change):`, toLoggableError(error));
  });
}

async function prune(history: Model<Record<string, unknown>>, record: unknown, options: ResolvedVersions, now: Date): Promise<void> {
  const rows = await history.find({ record }, { _id: 1, version: 1, createdAt: 1, published: 1 }).sort({ version: -1 }).lean<Pick<StoredVersion, '_id' | 'version' | 'createdAt' | 'published'>[]>();
  const kept = new Set([rows.at(0), rows.find((row) => row.published)]);
  const cutoff = options.maxAgeMs === undefined ? undefined : now.getTime() - options.maxAgeMs;
  const doomed = rows.filter((row, index) => {
    if (kept.has(row)) return false;
    return (options.max > 0 && index >= options.max) || (cutoff !== undefined && new Date(row.createdAt).getTime() < cutoff);
  });
  if (doomed.length) await history.deleteMany({ _id: { $in: doomed.map((row) => row._id) } });
}
