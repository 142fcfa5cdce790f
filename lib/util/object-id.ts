// ObjectId checks that hold across copies of mongoose and bson: a host may hand us documents read
// through its own mongoose, whose ObjectIds fail `instanceof` against the class of our copy.

import type { Types } from 'mongoose';

/** The text form of an ObjectId: exactly 24 hexadecimal digits, either case. */
export const OBJECT_ID_PATTERN = /^[0-9a-fA-F]{24}$/;

/** True when `text` is the 24-hex-digit text of an ObjectId (the only ids a record can have). */
export function isObjectIdString(text: string): boolean {
  return OBJECT_ID_PATTERN.test(text);
}

/**
 * True for an ObjectId made by any copy of bson. bson tags its values with `_bsontype`
 * (`ObjectId`; `ObjectID` before bson 5) precisely so that copies recognise each other's values;
 * `toHexString` is checked too because the serializers call it.
 */
export function isObjectId(value: unknown): value is Types.ObjectId {
  if (typeof value !== 'object' || value === null) return false;
  // (The cast reads one field of a value of unknown type; the field is checked before use.)
  const { _bsontype: tag, toHexString } = value as { _bsontype?: unknown; toHexString?: unknown };
  return (tag === 'ObjectId' || tag === 'ObjectID') && typeof toHexString === 'function';
}
