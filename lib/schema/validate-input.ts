// Checks a create/update body against the collection's fields and returns storage-ready data.
// Strict JSON types (no "5" for a number), every problem reported at once with its field name.
import { ContentError, type ErrorDetail, ValidationError } from '../errors';
import type { CollectionDescriptor, FieldDescriptor } from './descriptors';
import { isRecord } from '../util/is-record';
import { castFieldValue, checkRules, fieldRules } from './value-cast';

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

type Cast = { ok: true; value: unknown } | { ok: false; message: string; code: string };

/** One value of the field (one element of a list), cast as JSON and held to the field's limits. */
function castScalar(field: FieldDescriptor, value: unknown): Cast {
  const cast = castFieldValue(field, value, 'json');
  if (!cast.ok) return cast;
  const breach = checkRules(cast.value, fieldRules(field));
  return breach ? { ok: false, ...breach } : cast;
}

function castField(field: FieldDescriptor, value: unknown): Cast {
  if (!field.isArray) return castScalar(field, value);
  if (!Array.isArray(value)) return { ok: false, message: 'must be an array', code: 'invalid_type' };
  // Before any item is cast: a list far over the limit costs nothing more than one just over it.
  if (field.maxItems !== undefined && value.length > field.maxItems) {
    return { ok: false, message: `must have at most ${field.maxItems} items`, code: 'too_many_items' };
  }
  const out: unknown[] = [];
  for (let i = 0; i < value.length; i++) {
    const cast = castScalar(field, value[i]);
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
