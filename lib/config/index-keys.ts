// Index key patterns as MongoDB stores them: field names as stored (`id` is `_id`) and the `_id`
// tie-breaker appended in the direction of the last key, so every sort the index serves is total and a
// keyset cursor's conditions are bounds on it. Validation (duplicate indexes) and the schema share this.

/** An index key pattern, in key order: stored path -> 1 (ascending) or -1 (descending). */
export type IndexKeys = Readonly<Record<string, 1 | -1>>;

/** The Mongo path of a field: `id` is stored as `_id`, everything else under its own name. */
export function storagePath(field: string): string {
  return field === 'id' ? '_id' : field;
}

/** The key pattern of an index on `fields` (field names as clients know them), `_id` appended unless named. */
export function indexKeys(fields: Readonly<Record<string, 1 | -1>>): IndexKeys {
  const keys: Record<string, 1 | -1> = {};
  let last: 1 | -1 = 1;
  for (const [name, direction] of Object.entries(fields)) {
    keys[storagePath(name)] = direction;
    last = direction;
  }
  if (!Object.hasOwn(keys, '_id')) keys._id = last;
  return keys;
}

/**
 * Whether two key patterns are the same index, or one is the other walked backwards: either way they
 * serve the same filters and sorts, so the second is a duplicate.
 */
export function sameIndexKeys(a: IndexKeys, b: IndexKeys): boolean {
  const left = Object.entries(a);
  const right = Object.entries(b);
  if (left.length !== right.length || left.some(([key], i) => right[i][0] !== key)) return false;
  return left.every(([, d], i) => right[i][1] === d) || left.every(([, d], i) => right[i][1] === -d);
}
