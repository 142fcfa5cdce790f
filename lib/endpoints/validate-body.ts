// Checks a request body against an endpoint's body schema: every bad property is reported at once
// (400, problem+json `errors[]`), values are cast from multipart text, and only declared properties pass.
import type { EndpointBodyProperty, EndpointBodySchema, EndpointFile } from '../config/types';
import { type ErrorDetail, PayloadTooLargeError, ValidationError } from '../errors';
import type { BufferedFile } from '../http/multipart';
import { type CastType, type ValueRules, castAs, checkRules } from '../schema/value-cast';
import { isRecord } from '../util/is-record';
import { DEFAULT_MAX_FILE_SIZE } from './body-schema';

/** Files built by the multipart reader; anything else under a file property was not uploaded as a file. */
const uploadedFiles = new WeakSet();

/** Wraps a parsed upload as the handler sees it. */
export function toEndpointFile(file: BufferedFile): EndpointFile {
  const result: EndpointFile = { originalName: file.originalName, mimeType: file.mimeType, size: file.size, buffer: file.buffer };
  uploadedFiles.add(result);
  return result;
}

type Cast = { ok: true; value: unknown } | { ok: false; message: string; code: string };

/** An endpoint property's limits, named as the field limits they are. */
function rulesOf(property: EndpointBodyProperty): ValueRules {
  switch (property.type) {
    case 'string':
      return { options: property.enum, minLength: property.minLength, maxLength: property.maxLength };
    case 'number':
      return { integer: property.integer, min: property.minimum, max: property.maximum };
    default:
      return {};
  }
}

const CAST_TYPES: Record<Exclude<EndpointBodyProperty['type'], 'file'>, CastType> = {
  string: 'text',
  number: 'number',
  boolean: 'boolean',
  email: 'email',
  date: 'date',
};

/** A value cast as a field of the same type casts it (from a multipart form: as text), then held to the property's limits. */
function castTyped(property: Exclude<EndpointBodyProperty, { type: 'file' }>, value: unknown, fromText: boolean): Cast {
  // Strings stay strict in a form too: its values are all text already, and a JSON body's 5 is no string.
  const cast = castAs(CAST_TYPES[property.type], value, fromText && property.type !== 'string' ? 'text' : 'json');
  if (!cast.ok) return cast;
  const breach = checkRules(cast.value, rulesOf(property));
  return breach ? { ok: false, ...breach } : cast;
}

function castProperty(name: string, property: EndpointBodyProperty, value: unknown, fromText: boolean): Cast {
  switch (property.type) {
    case 'file': {
      if (typeof value !== 'object' || value === null || !uploadedFiles.has(value)) return { ok: false, message: 'must be a file', code: 'invalid_type' };
      const limit = property.maxSize ?? DEFAULT_MAX_FILE_SIZE;
      // The reader's limit is the largest of all file properties; each property's own is checked here.
      if ((value as EndpointFile).size > limit) throw new PayloadTooLargeError(`The file "${name}" is larger than ${limit} bytes.`);
      return { ok: true, value };
    }
    default:
      return castTyped(property, value, fromText);
  }
}

/** A multipart form sends empty inputs as ""; for numbers, booleans and files that means "not given". */
function isAbsent(property: EndpointBodyProperty, value: unknown, fromText: boolean): boolean {
  return value === undefined || value === null || (fromText && value === '' && property.type !== 'string');
}

/**
 * Returns the body with only declared properties, cast to their types. `fromText` says values came from a
 * multipart form (numbers and booleans as text). Throws a ValidationError listing every bad property.
 */
export function validateEndpointBody(schema: EndpointBodySchema, body: unknown, fromText: boolean): Record<string, unknown> {
  const input = body === undefined ? {} : body;
  if (!isRecord(input)) throw new ValidationError('The body must be an object.', [{ message: 'The body must be an object.', code: 'invalid_body' }]);
  const errors: ErrorDetail[] = [];
  const result: Record<string, unknown> = {};
  for (const key of Object.keys(input)) {
    if (!Object.hasOwn(schema.properties, key)) errors.push({ field: key, message: `unknown field "${key}"`, code: 'unknown_field' });
  }
  const required = new Set(schema.required ?? []);
  for (const [name, property] of Object.entries(schema.properties)) {
    const value = Object.hasOwn(input, name) ? input[name] : undefined;
    if (isAbsent(property, value, fromText)) {
      if (required.has(name)) errors.push({ field: name, message: `${name} is required`, code: 'required' });
      continue;
    }
    const cast = castProperty(name, property, value, fromText);
    if (cast.ok) result[name] = cast.value;
    else errors.push({ field: name, message: `${name} ${cast.message}`, code: cast.code });
  }
  if (errors.length) throw new ValidationError(`The body is not valid: ${errors.map((e) => e.field ?? 'body').join(', ')}.`, errors);
  return result;
}
