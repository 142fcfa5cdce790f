// Appends a version of a record to its history for every stored change of a versioned collection, inside
// the session that stored the change (a recorder at the write pipeline's seam, write/stored-change.ts).
// TODO(versions): build it.
import type { ChangeRecorder } from '../runtime';

/** Records the change's version; nothing for a collection without `versions`. */
export const recordVersion: ChangeRecorder = async () => {};
