// The query of a record's history routes: a version list pages as a record list does (page and perPage or
// limit, or a cursor; the same envelopes), newest first and in no other order; a version number in a path;
// and a diff's `against`. Pure: the operations read the history.
import type { CollectionDescriptor } from '../schema/descriptors';
import { describeField } from '../schema/descriptors';
import { decodeCursor } from './cursor';
import { chooseEnvelope, parseLimit, parsePage } from './parse-pagination';
import { readBooleanParam, readSingleParam, toInteger } from './read-param';
import { describeValue, rejectQuery } from './reject';
import type { CursorPosition, EnvelopeKind, QueryOptions, SortItem } from './types';

/** A page of a record's versions: which one, in which envelope. */
export interface VersionListQuery {
  page: number;
  limit: number;
  /** False with `count=false` or a cursor: no totals. */
  count: boolean;
  envelope: EnvelopeKind;
  /** Cursor mode: the position to read from (null: the first page). */
  cursor?: CursorPosition | null;
}

/** A diff's other side: another version, the record as it stands, or its working copy. */
export type VersionAgainst = { kind: 'version'; version: number } | { kind: 'current' } | { kind: 'draft' };

/** The one order of a version list: newest first. */
export const VERSION_SORT: readonly SortItem[] = Object.freeze([{ field: 'version', path: 'version', direction: -1 }]);

const VERSION_FIELD = describeField('version', { type: 'number' });

/**
 * What a version list's cursors are signed and read with: the list of `owner`'s versions, whose one sort
 * key is the version number (a cursor of a record list, or of another collection's history, is refused).
 */
export function versionListDescriptor(owner: CollectionDescriptor): CollectionDescriptor {
  return { ...owner, slug: `${owner.isGlobal ? 'globals/' : ''}${owner.slug}/versions`, fields: { version: VERSION_FIELD } };
}

/** Parses a version list's query (unknown parameters are ignored, as on record lists); a 400 for a bad page, size or cursor. */
export function parseVersionListQuery(raw: Record<string, unknown>, owner: CollectionDescriptor, options: QueryOptions): VersionListQuery {
  const envelope = chooseEnvelope(raw, options);
  const query: VersionListQuery = {
    page: envelope === 'cursor' ? 1 : parsePage(raw),
    limit: parseLimit(raw, owner, options),
    count: readBooleanParam(raw, 'count', true) && envelope !== 'cursor',
    envelope,
  };
  if (envelope === 'cursor') query.cursor = raw.cursor === '' ? null : decodeCursor(raw.cursor, VERSION_SORT, versionListDescriptor(owner));
  return query;
}

/** A version number (an integer >= 1, as text or a number), or undefined for anything else: no version has that name. */
export function parseVersionNumber(value: unknown): number | undefined {
  const number = toInteger(value);
  return number !== undefined && number >= 1 ? number : undefined;
}

/** `against`: a version number, `current` or `draft`; absent: undefined (the version before). Anything else is a 400. */
export function parseAgainst(raw: Record<string, unknown>): VersionAgainst | undefined {
  const value = readSingleParam(raw, 'against', 'invalid_value');
  if (value === undefined) return undefined;
  if (value === 'current' || value === 'draft') return { kind: value };
  const version = parseVersionNumber(value);
  if (version === undefined) return rejectQuery('against', `${describeValue(value)} is not a version number, current or draft`, 'invalid_value');
  return { kind: 'version', version };
}
