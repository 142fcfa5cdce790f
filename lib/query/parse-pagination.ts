// Page number, page size and the list envelope: which dialect the
// request spoke decides the response shape, so this is decided from the same parameters.
import type { CollectionDescriptor } from '../schema/descriptors';
import { hasParam, readSingleParam, toInteger } from './read-param';
import { describeValue, rejectQuery } from './reject';
import type { EnvelopeKind, QueryOptions } from './types';

/** `page`: an integer >= 1, default 1. */
export function parsePage(raw: Record<string, unknown>): number {
  const value = readSingleParam(raw, 'page', 'invalid_page');
  if (value === undefined) return 1;
  const page = toInteger(value);
  if (page === undefined || page < 1) rejectQuery('page', `${describeValue(value)} is not an integer >= 1`, 'invalid_page');
  return page;
}

/**
 * Page size from `perPage` (Forms B/C, preferred when both are given) or `limit` (Form A): an integer
 * >= 1, default the collection's defaultLimit. Above maxLimit: a 400 or clamped, per options.overLimit.
 */
export function parseLimit(raw: Record<string, unknown>, collection: Pick<CollectionDescriptor, 'pagination'>, options: QueryOptions): number {
  const name = hasParam(raw, 'perPage') ? 'perPage' : 'limit';
  const value = readSingleParam(raw, name, 'invalid_limit');
  if (value === undefined) return collection.pagination.defaultLimit;
  const limit = toInteger(value);
  if (limit === undefined || limit < 1) rejectQuery(name, `${describeValue(value)} is not an integer >= 1`, 'invalid_limit');
  const { maxLimit } = collection.pagination;
  if (limit <= maxLimit) return limit;
  if (options.overLimit === 'clamp') return maxLimit;
  return rejectQuery(name, `${limit} is above the maximum page size of ${maxLimit}`, 'limit_exceeded');
}

/**
 * `cursor` present (even empty) -> cursor envelope; else `limit` without `perPage` -> Form A `docs`;
 * else the configured default. A cursor together with `page` is a 400: they are two ways of paging.
 */
export function chooseEnvelope(raw: Record<string, unknown>, options: QueryOptions): EnvelopeKind {
  if (hasParam(raw, 'cursor')) {
    if (hasParam(raw, 'page')) rejectQuery('page', 'cannot be combined with cursor', 'invalid_page');
    return 'cursor';
  }
  if (hasParam(raw, 'limit') && !hasParam(raw, 'perPage')) return 'docs';
  return options.listFormat;
}
