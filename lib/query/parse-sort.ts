// The `sort` parameter in both syntaxes (`-field,field` and `field:asc|desc`, mixable), validated
// against the schema, always ending with the `_id` tie-breaker so pages and cursors are stable.
import { allowedSorts, canSortOn, storagePath, type CollectionDescriptor } from '../schema/descriptors';
import { findField } from './find-field';
import { readNameList } from './read-list';
import { rejectQuery } from './reject';
import type { SortItem } from './types';

/** Sort applied when the request names none: newest first. */
export const DEFAULT_SORT = '-createdAt';

const DIRECTIONS: Readonly<Record<string, 1 | -1>> = { asc: 1, desc: -1 };

function parseSortItem(text: string, collection: CollectionDescriptor, allowed: readonly string[] | undefined): SortItem {
  let name = text;
  let direction: 1 | -1 = 1;
  const colon = text.indexOf(':');
  if (colon !== -1) {
    name = text.slice(0, colon).trim();
    const word = text.slice(colon + 1).trim().toLowerCase();
    if (!Object.hasOwn(DIRECTIONS, word)) rejectQuery('sort', `"${text}": direction must be asc or desc`, 'invalid_sort');
    direction = DIRECTIONS[word];
  }
  if (name.startsWith('-')) {
    // `-field:asc` says two things at once; refuse rather than guess which one was meant.
    if (colon !== -1) rejectQuery('sort', `"${text}": use either -field or field:desc`, 'invalid_sort');
    name = name.slice(1);
    direction = -1;
  }
  // With `sortable`, any other name (unknown and hidden ones too, so they read alike) is refused with the list.
  if (allowed && !allowed.includes(name)) {
    rejectQuery('sort', `"${name}" is not sortable; sort on one of: ${allowed.join(', ')}`, 'invalid_sort');
  }
  const field = findField(collection, name);
  if (!field) rejectQuery('sort', `unknown field "${name}"`, 'invalid_sort');
  if (!canSortOn(field)) {
    rejectQuery('sort', `cannot sort on ${field.isArray ? 'list' : 'json'} field "${name}"`, 'invalid_sort');
  }
  return { field: name, path: storagePath(name), direction };
}

/**
 * Parses `sort` (a comma list or an array of them; absent or empty means `-createdAt`). Unknown, hidden,
 * json and list fields, fields outside the collection's `sortable` and repeated fields are a 400.
 * Appends `id` (`_id`) in the direction of the last item unless `id` is already sorted on.
 */
export function parseSort(input: unknown, collection: CollectionDescriptor): SortItem[] {
  let names = input === undefined ? [] : readNameList(input, 'sort', 'invalid_sort');
  if (names.length === 0) names = [DEFAULT_SORT];
  const items: SortItem[] = [];
  const allowed = allowedSorts(collection);
  for (const name of names) {
    const item = parseSortItem(name, collection, allowed);
    if (items.some((other) => other.field === item.field)) {
      rejectQuery('sort', `field "${item.field}" is sorted on more than once`, 'duplicate_sort');
    }
    items.push(item);
  }
  if (!items.some((item) => item.field === 'id')) {
    items.push({ field: 'id', path: storagePath('id'), direction: items[items.length - 1].direction });
  }
  return items;
}

/** The Mongo sort document, keys in sort order. */
export function toMongoSort(sort: readonly SortItem[]): Record<string, 1 | -1> {
  const result: Record<string, 1 | -1> = {};
  for (const item of sort) result[item.path] = item.direction;
  return result;
}
