// The start-up check of a collection's sorts against its indexes: which fields clients may sort on that
// no index serves (an in-memory sort, and deeper pages that read more records), as one warning line.
import { allowedSorts, canSortOn, type CollectionDescriptor } from './descriptors';
import { collectionIndexes, equalityPaths, singleFieldSort } from './index-specs';
import { sortServed } from './sort-coverage';

/** The fields clients may sort this collection on (its `sortable`, else every sortable field) that no index serves. */
export function unindexedSorts(collection: CollectionDescriptor, indexes = collectionIndexes(collection)): string[] {
  const names = allowedSorts(collection) ?? Object.values(collection.fields).filter(canSortOn).map((field) => field.name);
  return names.filter((name) => !sortServed(indexes, singleFieldSort(name), equalityPaths(collection)));
}

/** One warning line about the collection's unindexed sorts, or undefined when every allowed sort has an index. */
export function sortIndexWarning(collection: CollectionDescriptor): string | undefined {
  const unserved = unindexedSorts(collection);
  if (unserved.length === 0) return undefined;
  const line = `content-router: collection "${collection.slug}": no index serves a sort on ${unserved.join(', ')}, so such a list sorts in memory and deeper pages read more records`;
  // With `sortable` every allowed field gets its index, so only a collection without it lands here in practice.
  return collection.sortable
    ? `${line}.`
    : `${line}; declare \`sortable\` with the fields clients sort on to index them and refuse the rest (\`sortable: []\` allows only createdAt and id).`;
}
