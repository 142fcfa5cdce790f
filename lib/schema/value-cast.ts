// One cast per value type: what a value of each type may be given as, the value stored for it, and the
// code a value that is not of the type is refused with. Body validation, where/filter values, endpoint body
// schemas and the local API all cast through this table, so what a write stores a filter with the same
// value finds, and what a write refuses every path refuses with the same code.
import { Types } from 'mongoose';
import { castDate, parseIsoDate } from './parse-date';
import { canonicalType, type FieldDescriptor } from './descriptors';
import { isRecord } from '../util/is-record';
import { isObjectId, isObjectIdString } from '../util/object-id';
import { normalizeEmail } from '../util/normalize-email';

/** The type of one value as the casts know it: a field's type, or its element type for a list. */
export type CastType = 'text' | 'email' | 'number' | 'boolean' | 'date' | 'id' | 'json';

/**
 * Where a value came from. `json`: a JSON body or the local API, where values carry their own types (no
 * `"5"` for a number). `text`: a URL query or a multipart form, where every value may arrive as text, so
 * the text forms of numbers, booleans and dates are read too (typed values still are).
 */
export type ValueSource = 'json' | 'text';

/** The codes a value that is not of its type is refused with, on every path. */
export type CastCode = 'invalid_type' | 'invalid_email' | 'invalid_date' | 'invalid_id' | 'invalid_key';

/** The codes a value of the right type outside a field's limits is refused with (writes only). */
export type RuleCode = 'invalid_option' | 'too_short' | 'too_long' | 'too_small' | 'too_big' | 'invalid_type';

/** A refused value: its code, what was expected (`a number`, for query messages) and a body message (`must be a number`). */
export interface Refusal {
  ok: false;
  code: CastCode;
  expected: string;
  message: string;
}

/** A value outside a field's limits: its code and a body message (`must be >= 0`). */
export interface RuleBreach {
  code: RuleCode;
  message: string;
}

export type CastResult = { ok: true; value: unknown } | Refusal;

interface TypeCast {
  code: CastCode;
  expected: string;
  message: string;
  /** The stored value, or undefined when `value` is not of the type. */
  read(value: unknown, source: ValueSource): unknown;
}

// Plain decimal only: `''`, `'abc'`, `'0x10'`, `'Infinity'` are not numbers.
const NUMBER_TEXT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
// No whitespace and no control characters: an address is mailed and logged in with, never a place for them.
// eslint-disable-next-line no-control-regex -- the class names the control characters an address must not hold
const EMAIL = /^[^\s@\u0000-\u001f\u007f]+@[^\s@\u0000-\u001f\u007f]+\.[^\s@\u0000-\u001f\u007f]+$/;
/** RFC 5321's limit on a deliverable address; longer ones could be stored but never mailed or logged in with. */
const MAX_EMAIL_LENGTH = 254;

/** Strings; from text also finite numbers and booleans, stringified (a local API where may pass `5`). */
export function castText(value: unknown, source: ValueSource = 'text'): string | undefined {
  if (typeof value === 'string') return value;
  if (source === 'json') return undefined;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'boolean') return String(value);
  return undefined;
}

/** An address trimmed and lower-cased, as records store it, when it has the shape of one. */
export function castEmail(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const email = normalizeEmail(value);
  return email.length <= MAX_EMAIL_LENGTH && EMAIL.test(email) ? email : undefined;
}

/** Finite numbers; from text also strings that are entirely a decimal number. */
export function castNumber(value: unknown, source: ValueSource = 'text'): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (source === 'json' || typeof value !== 'string' || !NUMBER_TEXT.test(value)) return undefined;
  const number = Number(value);
  return Number.isFinite(number) ? number : undefined;
}

/** true/false; from text also `'true'`/`'false'`/`'1'`/`'0'` (and 1/0 from a local API where). */
export function castBoolean(value: unknown, source: ValueSource = 'text'): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (source === 'json') return undefined;
  if (value === 'true' || value === '1' || value === 1) return true;
  if (value === 'false' || value === '0' || value === 0) return false;
  return undefined;
}

/**
 * A Date. From JSON: ISO 8601 text of a day that exists, epoch milliseconds as a number, or a Date from server
 * code. From text also a 4-digit year and digit strings as epoch milliseconds (parse-date.ts).
 */
function castDateOf(value: unknown, source: ValueSource): Date | undefined {
  if (source === 'text' || typeof value !== 'string') return castDate(value);
  return parseIsoDate(value);
}

/** ObjectIds (server code may hand one over), or their 24-hex-digit text. */
export function castObjectId(value: unknown): Types.ObjectId | undefined {
  if (isObjectId(value)) return value;
  if (typeof value === 'string' && isObjectIdString(value)) return new Types.ObjectId(value);
  return undefined;
}

const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
const JSON_KEY_RULE = 'keys may not start with "$", contain "." or NUL, or be __proto__, constructor or prototype';

/**
 * Rejects `$`-prefixed, dotted and prototype keys anywhere inside a json value (they would reach Mongo
 * or a prototype), and keys with a NUL, which MongoDB cannot store (a key is a C string in BSON).
 */
function findUnsafeKey(value: unknown, depth = 0): string | undefined {
  if (depth > 32) return '(nesting deeper than 32)';
  if (Array.isArray(value)) {
    for (const item of value) {
      const bad = findUnsafeKey(item, depth + 1);
      if (bad) return bad;
    }
  } else if (isRecord(value)) {
    for (const [key, inner] of Object.entries(value)) {
      if (key.startsWith('$') || key.includes('.') || key.includes('\u0000') || UNSAFE_KEYS.has(key)) return key;
      const bad = findUnsafeKey(inner, depth + 1);
      if (bad) return bad;
    }
  }
  return undefined;
}

/** The table: per type, how a value is read and what a refusal says. */
const CASTS: Readonly<Record<Exclude<CastType, 'json'>, TypeCast>> = {
  text: { code: 'invalid_type', expected: 'a string', message: 'must be a string', read: castText },
  email: { code: 'invalid_email', expected: 'a valid e-mail address', message: 'must be a valid e-mail address', read: castEmail },
  number: { code: 'invalid_type', expected: 'a number', message: 'must be a number', read: castNumber },
  boolean: { code: 'invalid_type', expected: 'a boolean', message: 'must be a boolean', read: castBoolean },
  date: { code: 'invalid_date', expected: 'a date', message: 'must be an ISO-8601 date', read: castDateOf },
  id: { code: 'invalid_id', expected: 'a valid id', message: 'must be a record id', read: castObjectId },
};

/** Casts one value (not null: callers decide what null means) to `type`, read as coming from `source`. */
export function castAs(type: CastType, value: unknown, source: ValueSource): CastResult {
  if (type === 'json') {
    const bad = findUnsafeKey(value);
    // The key is JSON-quoted: it may hold a NUL or other control characters.
    if (bad === undefined) return { ok: true, value };
    return { ok: false, code: 'invalid_key', expected: 'a json value', message: `key ${JSON.stringify(bad)} is not allowed in a json value (${JSON_KEY_RULE})` };
  }
  const cast = CASTS[type];
  const read = cast.read(value, source);
  if (read === undefined) return { ok: false, code: cast.code, expected: cast.expected, message: cast.message };
  return { ok: true, value: read };
}

/** The cast of a field's values (of each element, for lists): ids for relations and `id`, else by its (element) type. */
export function castTypeOf(field: FieldDescriptor): CastType {
  switch (field.valueType) {
    case 'objectId':
      return 'id';
    case 'json':
      return 'json';
    case 'number':
    case 'boolean':
    case 'date':
      return field.valueType;
    case 'string': {
      const type = field.type === 'array' ? canonicalType(field.config.of ?? 'text') : field.type;
      return type === 'email' ? 'email' : 'text';
    }
  }
}

/** Casts one value of `field` (one element, for a list field). */
export function castFieldValue(field: FieldDescriptor, value: unknown, source: ValueSource): CastResult {
  return castAs(castTypeOf(field), value, source);
}

/**
 * One bound of a range (`gt`, `gte`, `lt`, `lte`) on `field`: cast as its values are, except that a bound on
 * an e-mail field need not be an address (`gte: "M"` starts the addresses from m): it is only trimmed and
 * lower-cased, as stored addresses are, so it compares with them as they are stored.
 */
export function castFieldBound(field: FieldDescriptor, value: unknown, source: ValueSource): CastResult {
  const type = castTypeOf(field);
  if (type !== 'email') return castAs(type, value, source);
  if (typeof value !== 'string') return castAs('email', value, source);
  return { ok: true, value: normalizeEmail(value) };
}

/**
 * The limits a field or an endpoint property sets on top of its type. Only writes check them: they bound
 * what may be stored, and a filter may ask about values outside them (stored before a limit changed).
 */
export interface ValueRules {
  /** The values allowed (select `options`, an endpoint string's `enum`). */
  options?: readonly string[];
  minLength?: number;
  maxLength?: number;
  min?: number;
  max?: number;
  /** Whole numbers only. */
  integer?: boolean;
}

/** A field's limits (select options, text lengths, number bounds): its config names them as ValueRules does. */
export function fieldRules(field: FieldDescriptor): ValueRules {
  return field.config;
}

/** The first limit a cast value breaks, or undefined when it keeps them all. */
export function checkRules(value: unknown, rules: ValueRules): RuleBreach | undefined {
  const refuse = (code: RuleCode, message: string): RuleBreach => ({ code, message });
  if (typeof value === 'number') {
    if (rules.integer && !Number.isInteger(value)) return refuse('invalid_type', 'must be a whole number');
    if (rules.min !== undefined && value < rules.min) return refuse('too_small', `must be >= ${rules.min}`);
    if (rules.max !== undefined && value > rules.max) return refuse('too_big', `must be <= ${rules.max}`);
  }
  if (typeof value === 'string') {
    if (rules.options && !rules.options.includes(value)) return refuse('invalid_option', `must be one of: ${rules.options.join(', ')}`);
    if (rules.minLength !== undefined && value.length < rules.minLength) return refuse('too_short', `must be at least ${rules.minLength} characters`);
    if (rules.maxLength !== undefined && value.length > rules.maxLength) return refuse('too_long', `must be at most ${rules.maxLength} characters`);
  }
  return undefined;
}
