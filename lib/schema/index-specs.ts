// Every index of a collection, in one list: unique and `index` fields, relationships, the default sort,
// one per `sortable` field and the declared compound `indexes`. The schema declares them; start-up checks
// the sorts clients may ask for against them. A sort index already served by another is not added twice.
import { indexKeys, sameIndexKeys, storagePath, type IndexKeys } from '../config/index-keys';
import type { CollectionDescriptor } from './descriptors';
import { type IndexSpec, type SortKeys, sortServed } from './sort-coverage';

export type { IndexSpec } from './sort-coverage';

/** The `_id` index MongoDB gives every collection. */
const ID_INDEX: IndexSpec = Object.freeze({ keys: Object.freeze({ _id: 1 as const }), builtIn: true as const });

/** The sort `field` then the `_id` tie-breaker (a sort on `id` alone has no tie to break). */
export function singleFieldSort(field: string): SortKeys {
  return field === 'id' ? [['_id', 1]] : [[storagePath(field), 1], ['_id', 1]];
}

/** The paths every default list query pins to one value: `deletedAt` (null) on soft-delete collections. */
export function equalityPaths(collection: CollectionDescriptor): readonly string[] {
  return collection.softDelete ? ['deletedAt'] : [];
}

/** Every index of the collection (the built-in `_id` one first, flagged `builtIn`). */
export function collectionIndexes(collection: CollectionDescriptor): IndexSpec[] {
  const specs: IndexSpec[] = [ID_INDEX];
  const add = (keys: IndexKeys): void => {
    if (!specs.some((spec) => !spec.options && sameIndexKeys(spec.keys, keys))) specs.push({ keys });
  };
  for (const field of Object.values(collection.fields)) {
    if (field.system) continue;
    // Sparse so that records without the value (absent, not null: writes unset nulls) never collide.
    if (field.unique) specs.push({ keys: { [field.name]: 1 }, options: { unique: true, sparse: true } });
    else if (field.config.index || field.type === 'relationship') add({ [field.name]: 1 });
  }
  if (collection.isGlobal) return specs;
  // The default list order (-createdAt, _id tie-breaker) walks this index; lists that hide soft-deleted
  // records (deletedAt: null, an equality) walk the second, lists with includeDeleted the first.
  add({ createdAt: -1, _id: -1 });
  if (collection.softDelete) add({ deletedAt: 1, createdAt: -1, _id: -1 });
  for (const name of collection.sortable ?? []) {
    const sort = singleFieldSort(name);
    if (!sortServed(specs, sort)) add(indexKeys({ [name]: 1 }));
    const live = specs.filter((spec) => Object.keys(spec.keys)[0] === 'deletedAt');
    if (collection.softDelete && name !== 'deletedAt' && !sortServed(live, sort, ['deletedAt'])) {
      add({ deletedAt: 1, ...indexKeys({ [name]: 1 }) });
    }
  }
  for (const keys of collection.indexes) add(keys);
  return specs;
}
