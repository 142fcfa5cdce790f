// The start-up check of the collections' sorts against their indexes: which fields clients may sort on that
// no index serves (an in-memory sort, and deeper pages that read more records), as one short warning.
import { allowedSorts, canSortOn, type CollectionDescriptor } from './descriptors';
import { collectionIndexes, equalityPaths, singleFieldSort } from './index-specs';
import { sortServed } from './sort-coverage';

/** The fields clients may sort this collection on (its `sortable`, else every sortable field) that no index serves. */
export function unindexedSorts(collection: CollectionDescriptor, indexes = collectionIndexes(collection)): string[] {
  const names = allowedSorts(collection) ?? Object.values(collection.fields).filter(canSortOn).map((field) => field.name);
  return names.filter((name) => !sortServed(indexes, singleFieldSort(name), equalityPaths(collection)));
}

/**
 * One warning for a whole router: a line per collection with unindexed sorts, then the advice once (a host
 * with six such collections reads one short list, not six long lines). Undefined when every sort has an index.
 */
export function sortIndexWarning(collections: Iterable<CollectionDescriptor>): string | undefined {
  const lines: string[] = [];
  for (const collection of collections) {
    const unserved = unindexedSorts(collection);
    if (unserved.length > 0) lines.push(`  - ${collection.slug}: ${unserved.join(', ')}`);
  }
  if (lines.length === 0) return undefined;
  // With `sortable` every allowed field gets its index, so only collections without it are ever listed.
  return [
    'content-router: no index serves these sorts, so such lists sort in memory and deeper pages read more records:',
    ...lines,
    'Declare `sortable` on a collection with the fields clients sort on, to index them and refuse the rest ' +
      '(`sortable: []` allows only createdAt and id), or turn this off with `warnings: { unindexedSorts: false }`.',
  ].join('\n');
}
