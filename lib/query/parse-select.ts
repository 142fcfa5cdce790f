// `fields`: which fields a list or read returns. Validated against the schema (hidden fields do not exist
// for clients); `id` is always returned, so it always leads the list.
import type { CollectionDescriptor } from '../schema/descriptors';
import { findField } from './find-field';
import { readNameList } from './read-list';
import { rejectQuery } from './reject';

/** The selected field names (`id` first, duplicates dropped), or undefined for "all visible fields". */
export function parseSelect(input: unknown, collection: CollectionDescriptor): string[] | undefined {
  if (input === undefined) return undefined;
  const names = readNameList(input, 'fields', 'invalid_fields');
  if (names.length === 0) return undefined;
  const selected = new Set(['id']);
  for (const name of names) {
    if (!findField(collection, name)) rejectQuery('fields', `unknown field "${name}"`, 'invalid_fields');
    selected.add(name);
  }
  return [...selected];
}
