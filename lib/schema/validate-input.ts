// Checks a create/update body against the collection's fields and returns storage-ready data.
// Strict JSON types (no "5" for a number), every problem reported at once with its field name.
import { Types } from 'mongoose';
import { ContentError, type ErrorDetail, ValidationError } from '../errors';
import type { CollectionDescriptor, FieldDescriptor, ValueType } from './descriptors';
import { isRecord } from '../util/is-record';
import { castDate, parseIsoDate } from './parse-date';
import { isObjectId, isObjectIdString } from '../util/object-id';
import { normalizeEmail } from '../util/normalize-email';

export interface ValidatedInput {
  /** Values to write, cast for storage (Date, ObjectId). */
  set: Record<string, unknown>;
  /** Fields the update clears (sent as null). Empty on create. */
  unset: string[];
  errors: ErrorDetail[];
}

export interface ValidateOptions {
  mode: 'create' | 'update';
  /** Server-side callers (local API) may write hidden fields; clients may not (write-only fields aside). */
  allowHidden?: boolean;
  /** Fields this caller may not write (e.g. role for non-admins), reported as forbidden. */
  readOnly?: ReadonlySet<string>;
}

// No whitespace and no control characters: an address is mailed and logged in with, never a place for them.
const EMAIL = /^[^\s@\u0000-\u001f\u007f]+@[^\s@\u0000-\u001f\u007f]+\.[^\s@\u0000-\u001f\u007f]+$/;
/** RFC 5321's limit on a deliverable address; longer ones could be stored but never mailed or logged in with. */
const MAX_EMAIL_LENGTH = 254;
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

type Cast = { ok: true; value: unknown } | { ok: false; message: string; code: string };

function castScalar(field: FieldDescriptor, valueType: ValueType, value: unknown): Cast {
  switch (valueType) {
    case 'string': {
      if (typeof value !== 'string') return { ok: false, message: 'must be a string', code: 'invalid_type' };
      if (field.type === 'email' || (field.type === 'array' && field.config.of === 'email')) {
        const email = normalizeEmail(value);
        if (email.length > MAX_EMAIL_LENGTH || !EMAIL.test(email)) return { ok: false, message: 'must be a valid e-mail address', code: 'invalid_email' };
        return { ok: true, value: email };
      }
      if (field.options && !field.options.includes(value)) {
        return { ok: false, message: `must be one of: ${field.options.join(', ')}`, code: 'invalid_option' };
      }
      const { minLength, maxLength } = field.config;
      if (minLength !== undefined && value.length < minLength) return { ok: false, message: `must be at least ${minLength} characters`, code: 'too_short' };
      if (maxLength !== undefined && value.length > maxLength) return { ok: false, message: `must be at most ${maxLength} characters`, code: 'too_long' };
      return { ok: true, value };
    }
    case 'number': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return { ok: false, message: 'must be a number', code: 'invalid_type' };
      const { min, max } = field.config;
      if (min !== undefined && value < min) return { ok: false, message: `must be >= ${min}`, code: 'too_small' };
      if (max !== undefined && value > max) return { ok: false, message: `must be <= ${max}`, code: 'too_big' };
      return { ok: true, value };
    }
    case 'boolean':
      return typeof value === 'boolean' ? { ok: true, value } : { ok: false, message: 'must be a boolean', code: 'invalid_type' };
    case 'date': {
      // As strict as query dates: ISO 8601 text of a day that exists ("March 7 2020", "2024-02-30" and "1"
      // are refused), epoch milliseconds as a number, or a Date from server code.
      const date =
        typeof value === 'string' ? parseIsoDate(value) : typeof value === 'number' || value instanceof Date ? castDate(value) : undefined;
      if (!date) return { ok: false, message: 'must be an ISO-8601 date', code: 'invalid_date' };
      return { ok: true, value: date };
    }
    case 'objectId':
      // Server code (a hook) may hand over an ObjectId itself.
      if (isObjectId(value)) return { ok: true, value };
      if (typeof value !== 'string' || !isObjectIdString(value)) return { ok: false, message: 'must be a record id', code: 'invalid_id' };
      return { ok: true, value: new Types.ObjectId(value) };
    case 'json': {
      const bad = findUnsafeKey(value);
      // The key is JSON-quoted: it may hold a NUL or other control characters.
      if (bad) return { ok: false, message: `key ${JSON.stringify(bad)} is not allowed in a json value (${JSON_KEY_RULE})`, code: 'invalid_key' };
      return { ok: true, value };
    }
  }
}

function castField(field: FieldDescriptor, value: unknown): Cast {
  if (!field.isArray) return castScalar(field, field.valueType, value);
  if (!Array.isArray(value)) return { ok: false, message: 'must be an array', code: 'invalid_type' };
  // Before any item is cast: a list far over the limit costs nothing more than one just over it.
  if (field.maxItems !== undefined && value.length > field.maxItems) {
    return { ok: false, message: `must have at most ${field.maxItems} items`, code: 'too_many_items' };
  }
  const out: unknown[] = [];
  for (let i = 0; i < value.length; i++) {
    const cast = castScalar(field, field.valueType, value[i]);
    if (!cast.ok) return { ok: false, message: `item ${i} ${cast.message}`, code: cast.code };
    out.push(cast.value);
  }
  return { ok: true, value: out };
}

/** Whether this caller may name the field in a body: visible, write-only (password), or a trusted caller. */
function writable(field: FieldDescriptor, options: ValidateOptions): boolean {
  return !field.hidden || field.writeOnly === true || options.allowHidden === true;
}

function isBlank(value: unknown): boolean {
  return value === null || value === undefined || value === '' || (Array.isArray(value) && value.length === 0);
}

/** Validates a body for create (required fields enforced) or update (partial; null clears a field). */
export function validateInput(body: unknown, collection: CollectionDescriptor, options: ValidateOptions): ValidatedInput {
  const result: ValidatedInput = { set: {}, unset: [], errors: [] };
  if (!isRecord(body)) {
    result.errors.push({ message: 'The body must be a JSON object.', code: 'invalid_body' });
    return result;
  }
  // JSON has no undefined; from a local API caller (`{ views: maybe }`) it means "not given".
  for (const key of Object.keys(body).filter((name) => body[name] !== undefined)) {
    const field = Object.hasOwn(collection.fields, key) ? collection.fields[key] : undefined;
    if (!field || !writable(field, options)) {
      result.errors.push({ field: key, message: `unknown field "${key}"`, code: 'unknown_field' });
    } else if (field.system) {
      result.errors.push({ field: key, message: `${key} is read-only`, code: 'read_only' });
    } else if (options.readOnly?.has(key)) {
      result.errors.push({ field: key, message: `you may not change ${key}`, code: 'forbidden_field' });
    }
  }
  for (const field of Object.values(collection.fields)) {
    if (field.system || !Object.hasOwn(body, field.name) || body[field.name] === undefined) continue;
    if (!writable(field, options)) continue;
    if (options.readOnly?.has(field.name)) continue;
    const value = body[field.name];
    if (value === null) {
      if (field.required) result.errors.push({ field: field.name, message: `${field.name} is required`, code: 'required' });
      else if (options.mode === 'update') result.unset.push(field.name);
      continue;
    }
    const cast = castField(field, value);
    if (!cast.ok) result.errors.push({ field: field.name, message: `${field.name} ${cast.message}`, code: cast.code });
    else if (field.required && isBlank(cast.value)) result.errors.push({ field: field.name, message: `${field.name} is required`, code: 'required' });
    else result.set[field.name] = cast.value;
  }
  if (options.mode === 'create') {
    for (const field of Object.values(collection.fields)) {
      if (!field.required || field.system || field.config.default !== undefined) continue;
      if (!Object.hasOwn(body, field.name) || body[field.name] === undefined) {
        if (writable(field, options)) {
          result.errors.push({ field: field.name, message: `${field.name} is required`, code: 'required' });
        }
      }
    }
  }
  return result;
}

/** Throws for a body with errors: 403 when it names fields this caller may not write (role, verified), else 400. */
export function assertValidInput(errors: ErrorDetail[], detail: string): void {
  if (errors.length === 0) return;
  const forbidden = errors.filter((e) => e.code === 'forbidden_field');
  if (forbidden.length) {
    const names = [...new Set(forbidden.map((e) => e.field))].join(', ');
    throw new ContentError(403, 'forbidden_field', 'Forbidden', `You may not set ${names}.`, { errors: forbidden });
  }
  throw new ValidationError(detail, errors);
}
