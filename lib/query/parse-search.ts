// The `search` parameter: a case-insensitive substring match over the collection's search fields,
// ORed across fields and ANDed with the rest of the query by the caller.
import type { CollectionDescriptor, FieldDescriptor } from '../schema/descriptors';
import { combineWhere } from './combine-where';
import { findField } from './find-field';
import { rejectQuery } from './reject';
import { toSubstringRegExp } from './text-match';
import type { WhereNode } from './types';

/** Longest search text accepted. */
export const MAX_SEARCH_LENGTH = 200;

/**
 * Parses `search` into an OR of `like` leaves (substring RegExps, so `%` and `_` are plain text here),
 * or undefined when absent or blank. Hidden and non-text fields are never searched, even if configured.
 */
export function parseSearch(input: unknown, collection: CollectionDescriptor): WhereNode | undefined {
  if (input === undefined) return undefined;
  if (typeof input !== 'string') rejectQuery('search', 'expected a single string', 'invalid_search');
  const text = input.trim();
  if (text === '') return undefined;
  if (text.length > MAX_SEARCH_LENGTH) {
    rejectQuery('search', `longer than ${MAX_SEARCH_LENGTH} characters`, 'invalid_search');
  }
  const fields = collection.searchFields
    .map((name) => findField(collection, name))
    .filter((field): field is FieldDescriptor => field?.valueType === 'string');
  if (fields.length === 0) rejectQuery('search', 'this collection has no searchable fields', 'invalid_search');
  const pattern = toSubstringRegExp(text);
  return combineWhere(
    'or',
    fields.map((field) => ({ kind: 'field', field, op: 'like', value: pattern })),
  );
}
