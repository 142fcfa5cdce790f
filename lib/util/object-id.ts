// ObjectId checks that hold across copies of mongoose/bson: a host's own mongoose makes ObjectIds
// that fail `instanceof` against ours, so ids are recognised by shape, never by class.

/** 24 hexadecimal characters: the only id text the router accepts. */
export const OBJECT_ID_PATTERN = /^[0-9a-fA-F]{24}$/;

/** True for the text form of an ObjectId. */
export function isObjectIdString(text: unknown): text is string {
  return typeof text === 'string' && OBJECT_ID_PATTERN.test(text);
}

/** True for a bson ObjectId from any copy of the bson package. */
export function isObjectId(value: unknown): value is { toHexString(): string } {
  if (typeof value !== 'object' || value === null) return false;
  const tag = (value as { _bsontype?: unknown })._bsontype;
  return (tag === 'ObjectId' || tag === 'ObjectID') && typeof (value as { toHexString?: unknown }).toHexString === 'function';
}
