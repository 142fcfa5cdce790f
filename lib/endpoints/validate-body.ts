// Checks a request body against an endpoint's body schema: every bad property is reported at once
// (400, problem+json `errors[]`), values are cast from multipart text, and only declared properties pass.
import type { EndpointBodyProperty, EndpointBodySchema, EndpointFile } from '../config/types';
import { type ErrorDetail, PayloadTooLargeError, ValidationError } from '../errors';
import type { BufferedFile } from '../http/multipart';
import { isRecord } from '../util/is-record';
import { DEFAULT_MAX_FILE_SIZE } from './body-schema';

/** Files built by the multipart reader; anything else under a file property was not uploaded as a file. */
const uploadedFiles = new WeakSet<object>();

/** Wraps a parsed upload as the handler sees it. */
export function toEndpointFile(file: BufferedFile): EndpointFile {
  const result: EndpointFile = { originalName: file.originalName, mimeType: file.mimeType, size: file.size, buffer: file.buffer };
  uploadedFiles.add(result);
  return result;
}

type Cast = { ok: true; value: unknown } | { ok: false; message: string; code: string };

const NUMBER_TEXT = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

function castString(property: Extract<EndpointBodyProperty, { type: 'string' }>, value: unknown): Cast {
  if (typeof value !== 'string') return { ok: false, message: 'must be a string', code: 'invalid_type' };
  if (property.minLength !== undefined && value.length < property.minLength) return { ok: false, message: `must be at least ${property.minLength} characters`, code: 'too_short' };
  if (property.maxLength !== undefined && value.length > property.maxLength) return { ok: false, message: `must be at most ${property.maxLength} characters`, code: 'too_long' };
  if (property.enum !== undefined && !property.enum.includes(value)) return { ok: false, message: `must be one of: ${property.enum.join(', ')}`, code: 'invalid_option' };
  return { ok: true, value };
}

function castNumber(property: Extract<EndpointBodyProperty, { type: 'number' }>, raw: unknown, fromText: boolean): Cast {
  const value = fromText && typeof raw === 'string' && NUMBER_TEXT.test(raw) ? Number(raw) : raw;
  if (typeof value !== 'number' || !Number.isFinite(value)) return { ok: false, message: 'must be a number', code: 'invalid_type' };
  if (property.integer && !Number.isInteger(value)) return { ok: false, message: 'must be a whole number', code: 'invalid_type' };
  if (property.minimum !== undefined && value < property.minimum) return { ok: false, message: `must be >= ${property.minimum}`, code: 'too_small' };
  if (property.maximum !== undefined && value > property.maximum) return { ok: false, message: `must be <= ${property.maximum}`, code: 'too_big' };
  return { ok: true, value };
}

function castBoolean(raw: unknown, fromText: boolean): Cast {
  const value = fromText && (raw === 'true' || raw === 'false') ? raw === 'true' : raw;
  return typeof value === 'boolean' ? { ok: true, value } : { ok: false, message: 'must be a boolean', code: 'invalid_type' };
}

function castProperty(name: string, property: EndpointBodyProperty, value: unknown, fromText: boolean): Cast {
  switch (property.type) {
    case 'string':
      return castString(property, value);
    case 'number':
      return castNumber(property, value, fromText);
    case 'boolean':
      return castBoolean(value, fromText);
    case 'file': {
      if (typeof value !== 'object' || value === null || !uploadedFiles.has(value)) return { ok: false, message: 'must be a file', code: 'invalid_type' };
      const limit = property.maxSize ?? DEFAULT_MAX_FILE_SIZE;
      // The reader's limit is the largest of all file properties; each property's own is checked here.
      if ((value as EndpointFile).size > limit) throw new PayloadTooLargeError(`The file "${name}" is larger than ${limit} bytes.`);
      return { ok: true, value };
    }
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
