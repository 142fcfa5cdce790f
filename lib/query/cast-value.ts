// One small cast per value type (like mongoose's lib/cast/*), turning query text or local-API values
// into what Mongo stores. Each returns undefined when the value cannot be cast; castValue turns that into a 400.
import { Types } from 'mongoose';
import type { FieldDescriptor, ValueType } from '../schema/descriptors';
import { castDate } from '../schema/parse-date';
import { describeValue, rejectQuery } from './reject';
import { isObjectId, isObjectIdString } from '../util/object-id';

const NUMBER_TEXT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** Strings as they are; finite numbers and booleans stringified (a local API caller may pass `5`). */
export function castString(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'boolean') return String(value);
  return undefined;
}

/** Finite numbers, or strings that are entirely a decimal number (`''`, `'abc'`, `'0x10'`, `'1e999'` are not). */
export function castNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string' || !NUMBER_TEXT.test(value)) return undefined;
  const number = Number(value);
  return Number.isFinite(number) ? number : undefined;
}

/** true/false, 'true'/'false', '1'/'0' (and 1/0 from a local API caller). */
export function castBoolean(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (value === 'true' || value === '1' || value === 1) return true;
  if (value === 'false' || value === '0' || value === 0) return false;
  return undefined;
}

/** ObjectIds, or 24-hex-digit strings (anything else is a client error in a query, not a 500). */
export function castObjectId(value: unknown): Types.ObjectId | undefined {
  if (isObjectId(value)) return value;
  if (typeof value === 'string' && isObjectIdString(value)) return new Types.ObjectId(value);
  return undefined;
}

const CASTS: Record<Exclude<ValueType, 'json'>, (value: unknown) => unknown> = {
  string: castString,
  number: castNumber,
  boolean: castBoolean,
  date: castDate,
  objectId: castObjectId,
};

const EXPECTED: Record<ValueType, string> = {
  string: 'a string',
  number: 'a number',
  boolean: 'a boolean',
  date: 'a date',
  objectId: 'a valid id',
  json: 'a value',
};

/**
 * Casts one value to the field's value type (of one element, for arrays and hasMany), or throws a 400
 * such as `where.views.gt: "abc" is not a number`. `null` is returned as is when `allowNull`.
 */
export function castValue(field: FieldDescriptor, value: unknown, path: string, allowNull = false): unknown {
  if (value === null && allowNull) return null;
  // json fields only take `exists`, which casts its own boolean; nothing else reaches here for them.
  const cast = field.valueType === 'json' ? undefined : CASTS[field.valueType](value);
  if (cast === undefined) rejectQuery(path, `${describeValue(value)} is not ${EXPECTED[field.valueType]}`, 'invalid_value');
  return cast;
}
