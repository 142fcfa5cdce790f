// A record's history: recorded at the write pipeline's seam, pruned after commit, read and restored here.
export { type HistoryArgs, type VersionRecord, type VersionSummary, historyModel } from './read-history';
export { type ListVersionsArgs, type VersionPage, listVersions } from './list-versions';
export { type VersionArgs, findVersion } from './find-version';
export { type DiffVersionArgs, type FieldChange, type VersionDiff, diffVersion } from './diff-version';
export { type RestoreVersionArgs, restoreVersion } from './restore-version';
