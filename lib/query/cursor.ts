// Keyset cursors: an opaque base64url token holding the sort values of the row a page ended on, signed
// by collection and sort so a cursor from another list is refused. Decoding validates every byte it trusts.
import { createHash } from 'node:crypto';
import { Types } from 'mongoose';
import type { CollectionDescriptor, ValueType } from '../schema/descriptors';
import { castDate } from '../schema/parse-date';
import { findField } from './find-field';
import { rejectQuery } from './reject';
import { isPlainObject } from './safe-keys';
import type { CursorPosition, SortItem } from './types';
import { isObjectId } from '../util/object-id';

/** Longest cursor accepted; real ones are far shorter unless a sort value is a very long text. */
export const MAX_CURSOR_LENGTH = 8192;

const BASE64URL = /^[A-Za-z0-9_-]+$/;
const HEX_24 = /^[0-9a-f]{24}$/;
const DIRECTION_CODES = { next: 'n', prev: 'p' } as const;

type EncodedValue = string | number | boolean | null | { d: string } | { o: string };

interface CursorPayload {
  /** Signature of the collection and sort the cursor belongs to. */
  s: string;
  d: 'n' | 'p';
  v: EncodedValue[];
}

/** A short hash of the collection slug and the normalized sort: a cursor only fits the list it came from. */
export function signCursor(slug: string, sort: readonly SortItem[]): string {
  const spec = sort.map((item) => `${item.path}:${item.direction}`).join(',');
  return createHash('sha256').update(`cursor-v1|${slug}|${spec}`).digest('hex').slice(0, 16);
}

// Dates and ObjectIds are tagged so the JSON decodes back to the same BSON type (type bracketing in
// Mongo comparisons would otherwise make a string never compare with a Date).
function encodeValue(value: unknown, path: string): EncodedValue {
  if (value === undefined || value === null) return null;
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new Error(`encodeCursor: invalid Date at "${path}"`);
    return { d: value.toISOString() };
  }
  if (isObjectId(value)) return { o: value.toHexString() };
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  throw new Error(`encodeCursor: cannot encode the value at "${path}" in a cursor`);
}

/**
 * The cursor pointing after (`next`) or before (`prev`) `row`, a raw lean document (storage paths,
 * `_id`), for a list of collection `slug` in `sort` order (which ends with the `_id` tie-breaker).
 */
export function encodeCursor(
  row: Record<string, unknown>,
  sort: readonly SortItem[],
  direction: 'next' | 'prev',
  slug: string,
): string {
  const payload: CursorPayload = {
    s: signCursor(slug, sort),
    d: DIRECTION_CODES[direction],
    v: sort.map((item) => encodeValue(row[item.path], item.path)),
  };
  return Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
}

function hasExactKeys(value: Record<string, unknown>, keys: readonly string[]): boolean {
  const own = Object.keys(value);
  return own.length === keys.length && keys.every((key) => Object.hasOwn(value, key));
}

const NO_VALUE = Symbol('invalid');

function decodeDate(value: unknown): Date | typeof NO_VALUE {
  if (!isPlainObject(value) || !hasExactKeys(value, ['d']) || typeof value.d !== 'string') return NO_VALUE;
  const date = castDate(value.d);
  // Only the exact form encodeCursor writes: anything else was not made here.
  return date !== undefined && date.toISOString() === value.d ? date : NO_VALUE;
}

function decodeObjectId(value: unknown): Types.ObjectId | typeof NO_VALUE {
  if (!isPlainObject(value) || !hasExactKeys(value, ['o']) || typeof value.o !== 'string' || !HEX_24.test(value.o)) {
    return NO_VALUE;
  }
  return new Types.ObjectId(value.o);
}

const DECODERS: Record<ValueType, (value: unknown) => unknown> = {
  string: (value) => (typeof value === 'string' ? value : NO_VALUE),
  number: (value) => (typeof value === 'number' && Number.isFinite(value) ? value : NO_VALUE),
  boolean: (value) => (typeof value === 'boolean' ? value : NO_VALUE),
  date: decodeDate,
  objectId: decodeObjectId,
  // json fields cannot be sorted on, so no cursor carries one.
  json: () => NO_VALUE,
};

function decodeValue(value: unknown, item: SortItem, collection: CollectionDescriptor): unknown {
  // `_id` is never null; every other sort value may be (null and missing sort first in Mongo).
  if (value === null) return item.path === '_id' ? NO_VALUE : null;
  const field = findField(collection, item.field);
  return field ? DECODERS[field.valueType](value) : NO_VALUE;
}

function readPayload(text: string): unknown {
  try {
    return JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
}

/**
 * Decodes a cursor for this collection and sort, casting each value by its sort field's type.
 * Anything malformed, altered, or made for another collection or sort is a 400 `invalid cursor`.
 */
export function decodeCursor(input: unknown, sort: readonly SortItem[], collection: CollectionDescriptor): CursorPosition {
  const invalid = (why = 'it is not a cursor this API issued (pass nextCursor or prevCursor back unchanged)'): never =>
    rejectQuery('cursor', `invalid cursor: ${why}`, 'invalid_cursor');
  if (typeof input !== 'string' || input.length > MAX_CURSOR_LENGTH || !BASE64URL.test(input)) return invalid();
  const payload = readPayload(input);
  if (!isPlainObject(payload) || !hasExactKeys(payload, ['s', 'd', 'v'])) return invalid();
  if (payload.d !== 'n' && payload.d !== 'p') return invalid();
  if (!Array.isArray(payload.v) || payload.v.length !== sort.length) return invalid();
  if (payload.s !== signCursor(collection.slug, sort)) {
    return invalid('it was made for another collection or another sort; keep the sort of the request that returned it, or start again with cursor=');
  }
  const encoded: unknown[] = payload.v;
  const values = sort.map((item, index) => decodeValue(encoded[index], item, collection));
  if (values.includes(NO_VALUE)) return invalid();
  return { direction: payload.d === 'n' ? 'next' : 'prev', values };
}
