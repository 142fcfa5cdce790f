// Fields -> Mongoose schema paths with the same validation (required, unique, options, bounds),
// plus the collection's indexes (index-specs.ts).
import { REVISION, moveRevisionOnUpdate } from './revision';
import { Schema, type SchemaDefinition, type SchemaDefinitionProperty } from 'mongoose';
import type { FieldConfig } from '../config/types';
import type { CollectionDescriptor, FieldDescriptor } from './descriptors';
import { collectionIndexes } from './index-specs';
import type { Clock } from '../util/clock';

const SCALARS = {
  string: String,
  number: Number,
  boolean: Boolean,
  date: Date,
  objectId: Schema.Types.ObjectId,
  json: Schema.Types.Mixed,
} as const;

function toDefault(config: FieldConfig): unknown {
  const value = config.default;
  // Arrays and objects are copied per document so one record's edits never reach another's default.
  if (Array.isArray(value)) return () => [...(value as unknown[])]; // (isArray narrows an unknown to any[])
  if (value !== null && typeof value === 'object') return () => structuredClone(value);
  return value;
}

function toPath(field: FieldDescriptor): SchemaDefinitionProperty {
  const { config } = field;
  const scalar: Record<string, unknown> = { type: SCALARS[field.valueType] };
  if (field.options) scalar.enum = [...field.options];
  if (field.valueType === 'string') {
    if (config.minLength !== undefined) scalar.minlength = config.minLength;
    if (config.maxLength !== undefined) scalar.maxlength = config.maxLength;
  }
  if (field.valueType === 'number') {
    if (config.min !== undefined) scalar.min = config.min;
    if (config.max !== undefined) scalar.max = config.max;
  }
  const path: Record<string, unknown> = field.isArray ? { type: [scalar] } : { ...scalar };
  // Mongoose gives array paths an implicit [] default; keep "absent" absent unless a default is configured.
  if (field.isArray) path.default = undefined;
  if (config.default !== undefined) path.default = toDefault(config);
  if (field.required) path.required = true;
  return path as SchemaDefinitionProperty;
}

/** Builds the Mongoose schema of a collection (or a global, whose `_id` is its slug); its timestamps read `clock`. */
export function buildSchema(collection: CollectionDescriptor, clock: Clock): Schema {
  const definition: SchemaDefinition = {};
  for (const field of Object.values(collection.fields)) {
    if (!field.system) definition[field.name] = toPath(field);
  }
  if (collection.isGlobal) definition._id = { type: String };
  if (collection.softDelete) definition.deletedAt = { type: Date, default: null };
  // Every write through the router moves it (revision.ts); never part of a record.
  definition[REVISION] = { type: Number, default: 1 };

  const schema = new Schema(definition, {
    timestamps: { currentTime: () => clock.now() },
    versionKey: false,
    strict: true,
    // Indexes are built by api.ready (Model.init), not lazily on first use.
    autoIndex: false,
    autoCreate: false,
    minimize: false,
    // Mongoose gives every query, aggregation and index of the model this collation: sorts, keyset cursor
    // bounds, filters and counts compare text alike, and the indexes stay usable by those queries.
    ...(collection.collation && { collation: { ...collection.collation } }),
  });

  for (const spec of collectionIndexes(collection)) {
    if (!spec.builtIn) schema.index(spec.keys, spec.options);
  }
  moveRevisionOnUpdate(schema);
  return schema;
}
