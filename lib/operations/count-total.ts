// The total of a page-paginated list: read from the collection's metadata when the final filter is empty
// (nothing to match, so every stored record counts), counted exactly otherwise, through the count hooks
// (a cache may answer a repeated filter).
import { runThrough } from './read-access';
import type { ResolvedRead } from './runtime';

/**
 * Counts the records matching `filter` for `read`. Only a filter with no condition at all takes the
 * estimate: a soft-delete collection always has its scope (`deletedAt: null`) and a read rule that returns
 * a where adds it, so neither ever does.
 *
 * estimatedDocumentCount reads the count the server keeps in the collection's metadata instead of scanning
 * an index or the documents. MongoDB documents two cases where it differs from the documents stored: after
 * an unclean shutdown (until the collection is next validated, `db.collection.validate()`), and on a
 * sharded cluster with orphaned documents (moved chunks not yet cleaned up). Both are rare and the total is
 * advisory, so there is no option to turn this off; a caller who needs an exact figure filters, and the
 * count is exact.
 */
export function countTotal(read: ResolvedRead, filter: Record<string, unknown>): Promise<number> {
  const { model } = read.args.collection;
  if (Object.keys(filter).length === 0) return model.estimatedDocumentCount().exec();
  return runThrough(read.args.runtime.hooks.countThrough, { read, filter }, () => model.countDocuments(filter).exec());
}
