// One small cast per value type (like mongoose's lib/cast/*), turning query text or local-API values
// into what Mongo stores. Each returns undefined when the value cannot be cast; castValue turns that into a 400.
import { Types } from 'mongoose';
import type { FieldDescriptor, ValueType } from '../schema/descriptors';
import { describeValue, rejectQuery } from './reject';
import { isObjectId, isObjectIdString } from '../util/object-id';

const NUMBER_TEXT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const EPOCH_TEXT = /^-?\d+$/;
const YEAR_TEXT = /^\d{4}$/;
// ISO 8601: date, optionally a time, optionally an offset. A space may stand for the offset's `+`
// because an unencoded `+` in a URL query decodes to a space.
const ISO_TEXT =
  /^(\d{4})-(\d{2})(?:-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|z|[+\- ]\d{2}(?::?\d{2})?)?)?)?$/;

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

function dateFromEpoch(ms: number): Date | undefined {
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

// Date.UTC maps years 0-99 to 1900-1999; setUTCFullYear does not.
function utcMs(year: number, month: number, day: number, hour = 0, minute = 0, second = 0, ms = 0): number {
  const date = new Date(Date.UTC(2000, month - 1, day, hour, minute, second, ms));
  date.setUTCFullYear(year, month - 1, day);
  return date.getTime();
}

function offsetMinutes(offset: string | undefined): number | undefined {
  if (offset === undefined || offset === 'Z' || offset === 'z') return 0;
  const sign = offset.startsWith('-') ? -1 : 1;
  const digits = offset.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = digits.length > 2 ? Number(digits.slice(2)) : 0;
  if (hours > 23 || minutes > 59) return undefined;
  return sign * (hours * 60 + minutes);
}

// Built from the components rather than Date.parse: Date.parse rolls 2024-02-30 over to March 1st
// and reads an offset-less date-time in the server's local zone. Here it is always UTC.
function dateFromIso(text: string): Date | undefined {
  const match = ISO_TEXT.exec(text);
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s, fraction, offset] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = d === undefined ? 1 : Number(d);
  const hour = h === undefined ? 0 : Number(h);
  const minute = mi === undefined ? 0 : Number(mi);
  const second = s === undefined ? 0 : Number(s);
  const ms = fraction === undefined ? 0 : Number(fraction.padEnd(3, '0').slice(0, 3));
  const shift = offsetMinutes(offset);
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59 || shift === undefined) return undefined;
  // A day that rolled over (Feb 30 -> Mar 1) is not the day the client wrote.
  if (day < 1 || new Date(utcMs(year, month, day)).getUTCDate() !== day) return undefined;
  return dateFromEpoch(utcMs(year, month, day, hour, minute, second, ms) - shift * 60_000);
}

/**
 * Valid Dates; epoch milliseconds (a number, or a string of digits other than a 4-digit year);
 * ISO 8601 strings (`2024`, `2024-05`, `2024-05-01`, `2024-05-01T10:00[:00[.000]][Z|+02:00]`, UTC when no offset).
 */
export function castDate(value: unknown): Date | undefined {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : new Date(value.getTime());
  if (typeof value === 'number') return Number.isFinite(value) ? dateFromEpoch(value) : undefined;
  if (typeof value !== 'string') return undefined;
  if (YEAR_TEXT.test(value)) return dateFromIso(`${value}-01`);
  if (EPOCH_TEXT.test(value)) return dateFromEpoch(Number(value));
  return dateFromIso(value);
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
