// Endpoint body schemas as config: checking their shape once at start-up, and turning them into the
// JSON Schema the route table (and so the OpenAPI document) declares.
import type { EndpointBodyProperty, EndpointBodySchema } from '../config/types';
import type { JsonSchema } from '../http/route-table';
import { isRecord } from '../util/is-record';

/** Largest file a file property accepts unless it sets `maxSize`. */
export const DEFAULT_MAX_FILE_SIZE = 10 * 1024 * 1024;
/** Upper bound of `maxSize`: files are held in memory. */
export const MAX_FILE_SIZE_LIMIT = 100 * 1024 * 1024;

const PROPERTY_NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;
const PROPERTY_KEYS: Record<EndpointBodyProperty['type'], readonly string[]> = {
  string: ['type', 'description', 'minLength', 'maxLength', 'enum'],
  number: ['type', 'description', 'minimum', 'maximum', 'integer'],
  boolean: ['type', 'description'],
  email: ['type', 'description'],
  date: ['type', 'description'],
  file: ['type', 'description', 'maxSize'],
};

function isCount(value: unknown): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

function checkProperty(path: string, property: unknown, problems: string[]): void {
  if (!isRecord(property) || typeof property.type !== 'string' || !Object.hasOwn(PROPERTY_KEYS, property.type)) {
    problems.push(`${path}.type: must be "string", "number", "boolean", "email", "date" or "file"`);
    return;
  }
  const type = property.type as EndpointBodyProperty['type'];
  for (const key of Object.keys(property)) {
    if (!PROPERTY_KEYS[type].includes(key)) problems.push(`${path}.${key}: unknown option for a ${type} property`);
  }
  if (property.description !== undefined && typeof property.description !== 'string') problems.push(`${path}.description: must be a string`);
  for (const key of ['minLength', 'maxLength'] as const) {
    if (property[key] !== undefined && !isCount(property[key])) problems.push(`${path}.${key}: must be a whole number >= 0`);
  }
  for (const key of ['minimum', 'maximum'] as const) {
    if (property[key] !== undefined && !(typeof property[key] === 'number' && Number.isFinite(property[key]))) {
      problems.push(`${path}.${key}: must be a finite number`);
    }
  }
  if (property.integer !== undefined && typeof property.integer !== 'boolean') problems.push(`${path}.integer: must be a boolean`);
  if (property.enum !== undefined) {
    const ok = Array.isArray(property.enum) && property.enum.length > 0 && property.enum.every((v) => typeof v === 'string');
    if (!ok) problems.push(`${path}.enum: must be a non-empty array of strings`);
  }
  if (property.maxSize !== undefined) {
    const size = property.maxSize;
    if (typeof size !== 'number' || !Number.isInteger(size) || size < 1 || size > MAX_FILE_SIZE_LIMIT) {
      problems.push(`${path}.maxSize: must be a whole number of bytes from 1 to ${MAX_FILE_SIZE_LIMIT}`);
    }
  }
}

/** Every problem of a `schema.body`, named under `path`. */
export function checkBodySchema(path: string, body: unknown): string[] {
  const problems: string[] = [];
  if (!isRecord(body)) return [`${path}: must be an object with properties`];
  for (const key of Object.keys(body)) {
    if (!['type', 'properties', 'required'].includes(key)) problems.push(`${path}.${key}: unknown option`);
  }
  if (body.type !== undefined && body.type !== 'object') problems.push(`${path}.type: must be "object" (or left out)`);
  if (!isRecord(body.properties) || Object.keys(body.properties).length === 0) {
    problems.push(`${path}.properties: must be an object with at least one property`);
    return problems;
  }
  for (const [name, property] of Object.entries(body.properties)) {
    if (!PROPERTY_NAME.test(name)) problems.push(`${path}.properties.${name}: not a valid property name (a letter, then letters, digits or _)`);
    checkProperty(`${path}.properties.${name}`, property, problems);
  }
  if (body.required !== undefined) {
    if (!Array.isArray(body.required) || !body.required.every((r) => typeof r === 'string')) {
      problems.push(`${path}.required: must be an array of property names`);
    } else {
      for (const name of body.required) {
        if (!Object.hasOwn(body.properties, name)) problems.push(`${path}.required: "${name}" is not a property`);
      }
    }
  }
  return problems;
}

/** True when the body has a file property, so it is read as multipart/form-data. */
export function hasFileProperty(body: EndpointBodySchema): boolean {
  return Object.values(body.properties).some((p) => p.type === 'file');
}

function propertySchema(property: EndpointBodyProperty): JsonSchema {
  const description = property.description === undefined ? {} : { description: property.description };
  switch (property.type) {
    case 'string':
      return {
        type: 'string',
        ...description,
        ...(property.minLength === undefined ? {} : { minLength: property.minLength }),
        ...(property.maxLength === undefined ? {} : { maxLength: property.maxLength }),
        ...(property.enum === undefined ? {} : { enum: [...property.enum] }),
      };
    case 'number':
      return {
        type: property.integer ? 'integer' : 'number',
        ...description,
        ...(property.minimum === undefined ? {} : { minimum: property.minimum }),
        ...(property.maximum === undefined ? {} : { maximum: property.maximum }),
      };
    case 'boolean':
      return { type: 'boolean', ...description };
    case 'email':
      return { type: 'string', format: 'email', ...description };
    case 'date':
      return { type: 'string', format: 'date-time', ...description };
    case 'file':
      return { type: 'string', format: 'binary', ...description };
  }
}

/** The body as a JSON Schema object (file properties as binary strings), with `title` set to its export name. */
export function bodyJsonSchema(body: EndpointBodySchema, name?: string): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const [key, property] of Object.entries(body.properties)) properties[key] = propertySchema(property);
  return {
    type: 'object',
    ...(name === undefined ? {} : { title: name }),
    properties,
    ...(body.required?.length ? { required: [...body.required] } : {}),
    additionalProperties: false,
  };
}
