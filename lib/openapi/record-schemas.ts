// JSON Schemas of records and write bodies, derived from the field descriptors: hidden fields absent,
// the write-only password only in write bodies, every field of a record required (unset reads as null),
// defaults on create bodies only, relationships and uploads as an id or the populated record (the file record
// for uploads), dates as date-time strings.
import type { JsonSchema } from '../http/route-table';
import type { CanonicalType, CollectionDescriptor, FieldDescriptor, SchemaRegistry } from '../schema/descriptors';
import { FILE_RECORD_NAME } from '../schema/file-record';
import type { ComponentNames } from './component-names';

/** Where a schema points for another component. */
export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

/** Keywords that describe a value rather than constrain it: they stay outside an anyOf wrapper. */
const ANNOTATIONS = ['default', 'writeOnly', 'readOnly', 'description'];

/** The schema that also allows null: a type list (and null among an enum) when it can, else anyOf. */
export function nullable(schema: JsonSchema): JsonSchema {
  if (typeof schema.type === 'string' && schema.const === undefined) {
    // (The cast: Array.isArray narrows an unknown to any[].)
    return { ...schema, type: [schema.type, 'null'], ...(Array.isArray(schema.enum) && { enum: [...(schema.enum as unknown[]), null] }) };
  }
  const inner = Object.fromEntries(Object.entries(schema).filter(([key]) => !ANNOTATIONS.includes(key)));
  const outer = Object.fromEntries(Object.entries(schema).filter(([key]) => ANNOTATIONS.includes(key)));
  if (Object.keys(inner).length === 0) return schema; // already anything, null included
  return { anyOf: [inner, { type: 'null' }], ...outer };
}

type Mode = 'read' | 'write';

/** The schema of one scalar value of a type (an array field's element, a hasMany field's item). */
function scalarSchema(type: CanonicalType, field: FieldDescriptor, mode: Mode, relatedRecord: JsonSchema | undefined): JsonSchema {
  const { minLength, maxLength, min, max } = field.config;
  switch (type) {
    case 'text':
    case 'textarea':
      return mode === 'write' ? { type: 'string', ...(minLength !== undefined && { minLength }), ...(maxLength !== undefined && { maxLength }) } : { type: 'string' };
    case 'email':
      return { type: 'string', format: 'email' };
    case 'number':
      return mode === 'write' ? { type: 'number', ...(min !== undefined && { minimum: min }), ...(max !== undefined && { maximum: max }) } : { type: 'number' };
    case 'boolean':
      return { type: 'boolean' };
    case 'date':
      return { type: 'string', format: 'date-time' };
    case 'select':
      return { type: 'string', enum: [...(field.options ?? [])] };
    case 'relationship':
      // Read: an id, or the related record when the request populated it (depth/include).
      return mode === 'read' ? { oneOf: [ref('ObjectId'), relatedRecord ?? { type: 'object', properties: { id: ref('ObjectId') }, required: ['id'] }] } : ref('ObjectId');
    case 'upload':
      // Read: an id, or the file record when the request populated it and the caller may read the file.
      return mode === 'read' ? { oneOf: [ref('ObjectId'), ref(FILE_RECORD_NAME)] } : ref('ObjectId');
    case 'json':
      return { description: 'Any JSON value' };
    case 'array':
      return { type: 'string' };
  }
}

/** A literal default a client can be told about (functions and Date objects are not). */
function literalDefault(value: unknown): unknown {
  const isLiteral = (v: unknown) => v === null || ['string', 'number', 'boolean'].includes(typeof v);
  if (isLiteral(value)) return value;
  if (Array.isArray(value) && value.every(isLiteral)) return value;
  return undefined;
}

/** The schema of one field's value as records carry it (`read`) or bodies send it (`write`, without its default). */
export function fieldSchema(field: FieldDescriptor, mode: Mode, related: (slug: string) => JsonSchema | undefined): JsonSchema {
  const relatedRecord = field.relationTo ? related(field.relationTo) : undefined;
  let schema: JsonSchema;
  if (field.type === 'array') {
    const of = field.config.of ?? 'text';
    const itemType: CanonicalType = of === 'string' ? 'text' : of === 'datetime' ? 'date' : of;
    schema = { type: 'array', items: scalarSchema(itemType, field, mode, undefined) };
  } else {
    const item = scalarSchema(field.type, field, mode, relatedRecord);
    schema = field.isArray ? { type: 'array', items: item } : item;
  }
  // Bounds are told where they are enforced: on what a client sends.
  if (mode === 'write' && field.maxItems !== undefined) schema = { ...schema, maxItems: field.maxItems };
  if (mode === 'write' && field.writeOnly) schema = { ...schema, writeOnly: true };
  return schema;
}

/** The fields a record carries, in wire order (id, the fields, the timestamps): visible ones; a global has no id of its own. */
function readableFields(descriptor: CollectionDescriptor): FieldDescriptor[] {
  const visible = Object.values(descriptor.fields).filter((f) => !f.hidden && !(descriptor.isGlobal && f.name === 'id'));
  const system = visible.filter((f) => f.system);
  return [...system.filter((f) => f.name === 'id'), ...visible.filter((f) => !f.system), ...system.filter((f) => f.name !== 'id')];
}

/** The fields a client may send: not system, visible or write-only. */
function writableFields(descriptor: CollectionDescriptor): FieldDescriptor[] {
  return Object.values(descriptor.fields).filter((f) => !f.system && (!f.hidden || f.writeOnly === true));
}

/** A field the caller may be refused (a field `read` rule): absent from that caller's answers, so never required. */
export function mayBeUnreadable(field: FieldDescriptor): boolean {
  return field.config.access?.read !== undefined;
}

/**
 * The record schema (`<Slug>`): every visible field is in every record (null when unset), so all are
 * required and generated clients need no `?`, except a field with a read rule, absent for callers the rule
 * refuses. The keys the afterRead hooks add (`computed`) are declared too, read-only, required only when the
 * host says the hook always sets them. `fields=` is the one exception: its answers carry only the selected
 * fields and `id`, as the parameter says.
 */
export function recordSchema(descriptor: CollectionDescriptor, related: (slug: string) => JsonSchema | undefined): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const field of readableFields(descriptor)) {
    if (field.name === 'id') properties.id = ref('ObjectId');
    // deletedAt is null on live records; a global never written yet has null timestamps, and so may a
    // document of an `existing` collection that something else wrote.
    else if (field.system) properties[field.name] = field.name === 'deletedAt' || descriptor.isGlobal || descriptor.existing ? nullable({ type: 'string', format: 'date-time' }) : { type: 'string', format: 'date-time' };
    else properties[field.name] = field.required ? fieldSchema(field, 'read', related) : nullable(fieldSchema(field, 'read', related));
    if (!mayBeUnreadable(field)) required.push(field.name);
  }
  for (const key of Object.values(descriptor.computed)) {
    const schema = { ...fieldSchema(key, 'read', related), readOnly: true, ...(key.config.description !== undefined && { description: key.config.description }) };
    properties[key.name] = key.required ? schema : nullable(schema);
    if (key.required) required.push(key.name);
  }
  return {
    type: 'object',
    description: descriptor.isGlobal
      ? `The ${descriptor.slug} global.`
      : `A record of ${descriptor.slug}: every field the caller may read, null when unset. With \`fields=\` only the selected fields and id.`,
    properties,
    required,
    additionalProperties: false,
  };
}

/**
 * A write body: `create` requires the required fields that have no default, and tells the defaults;
 * `update` is partial (null clears), with no defaults: a field it leaves out keeps its value. `omit`
 * leaves out fields a route refuses.
 */
export function inputSchema(descriptor: CollectionDescriptor, mode: 'create' | 'update', omit: readonly string[] = []): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const field of writableFields(descriptor)) {
    if (omit.includes(field.name)) continue;
    let schema = fieldSchema(field, 'write', () => undefined);
    const fallback = mode === 'create' ? literalDefault(field.config.default) : undefined;
    if (fallback !== undefined) schema = { ...schema, default: fallback };
    properties[field.name] = field.required ? schema : nullable(schema);
    if (mode === 'create' && field.required && field.config.default === undefined) required.push(field.name);
  }
  return {
    type: 'object',
    description: mode === 'create' ? `A new record of ${descriptor.slug}.` : `Fields to change (null clears an optional field).`,
    properties,
    ...(required.length ? { required } : {}),
    additionalProperties: false,
  };
}

/**
 * The record, create and update schemas of a collection (or the record and update ones of a global);
 * `writeDenied`: the fields a caller may not set, left out of its bodies.
 */
export function collectionSchemas(
  descriptor: CollectionDescriptor,
  names: ComponentNames,
  registry: SchemaRegistry,
  namesOf: (slug: string) => ComponentNames | undefined,
  writeDenied?: (descriptor: CollectionDescriptor, mode: 'create' | 'update') => readonly string[],
): Record<string, JsonSchema> {
  const related = (slug: string) => {
    const target = registry.has(slug) ? namesOf(slug) : undefined;
    return target ? ref(target.record) : undefined;
  };
  const schemas: Record<string, JsonSchema> = { [names.record]: recordSchema(descriptor, related) };
  if (!descriptor.isGlobal) schemas[names.create] = inputSchema(descriptor, 'create', writeDenied?.(descriptor, 'create'));
  schemas[names.update] = inputSchema(descriptor, 'update', writeDenied?.(descriptor, 'update'));
  return schemas;
}
