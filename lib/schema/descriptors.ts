// Field and collection descriptors: the normalized view of the schema that the query, validation,
// serialization and OpenAPI layers read. Built once from the resolved config; plain data, no Mongoose.
import type { IndexKeys } from '../config/index-keys';
import type { CollectionHooks } from '../config/hooks';
import type { ArrayItemType, CollationOptions, CollectionAccess, ComputedFieldConfig, FieldConfig, FieldType } from '../config/types';

/** The canonical type of a field (aliases folded: string -> text, datetime -> date). */
export type CanonicalType = Exclude<FieldType, 'string' | 'datetime'>;

/** The type a single stored value has, used for casting query values. */
export type ValueType = 'string' | 'number' | 'boolean' | 'date' | 'objectId' | 'json';

/** A field config read through every type's options at once (each absent where its type has none). */
export type AnyFieldConfig = FieldConfig &
  Partial<{
    minLength: number;
    maxLength: number;
    min: number;
    max: number;
    of: ArrayItemType;
    hasMany: boolean;
    options: readonly string[];
    relationTo: string;
    maxItems: number;
    /** A computed key's description (`computed`). */
    description: string;
  }>;

export interface FieldDescriptor {
  name: string;
  type: CanonicalType;
  /** The scalar type of one value (for arrays/hasMany: of one element). */
  valueType: ValueType;
  /** True for `array` fields and `hasMany` select/relationship/upload fields. */
  isArray: boolean;
  /** List fields: the most items a body may give it (`maxItems`, default DEFAULT_MAX_ITEMS). */
  maxItems?: number;
  hidden: boolean;
  /** Hidden, yet clients may write it (an auth collection's password): accepted on input, never read back. */
  writeOnly?: boolean;
  required: boolean;
  unique: boolean;
  /** `select` options. */
  options?: readonly string[];
  /** `relationship`: related collection slug. `upload`: the uploads pseudo-collection. */
  relationTo?: string;
  /** Built-in fields (id, createdAt, updatedAt, deletedAt) cannot be written by clients. */
  system: boolean;
  config: AnyFieldConfig;
}

export interface CollectionDescriptor {
  slug: string;
  /** Every field clients may name, including the system ones; hidden fields are included and flagged. */
  fields: Readonly<Record<string, FieldDescriptor>>;
  /** Field names `search=` looks in. */
  searchFields: readonly string[];
  softDelete: boolean;
  isAuth: boolean;
  isGlobal: boolean;
  pagination: { defaultLimit: number; maxLimit: number };
  maxBatchSize: number;
  /** Writes of one record over HTTP need If-Match. */
  requireIfMatch: boolean;
  cacheTtl?: number;
  access: CollectionAccess;
  /** The `sortable` the collection declares; undefined when it declares none (any sortable field then). */
  sortable?: readonly string[];
  /** The compound indexes the collection declares (`indexes`), as key patterns with `_id` appended. */
  indexes: readonly IndexKeys[];
  /** Every hook list, empty where none is configured (a global's create, delete and read-before lists always are). */
  hooks: ResolvedHooks;
  /** How the collection's text sorts and compares, in every query and index; undefined: code-point order. */
  collation?: Readonly<CollationOptions>;
  /** Fronts documents written by something else: timestamps may be missing (they read as null). */
  existing: boolean;
  /** Whether api.ready builds the collection's indexes. */
  buildIndexes: boolean;
  /**
   * The keys the `afterRead` hooks add (`computed`): described for the OpenAPI document and the generated
   * types only. They are not fields: no write, query or stored record knows them.
   */
  computed: Readonly<Record<string, FieldDescriptor>>;
  /** History (and with `drafts` a working copy) of each record; undefined when the collection keeps none. */
  versions?: ResolvedVersions;
  /**
   * `draft`: this descriptor describes the working copies of a drafts collection (its `drafts` runtime):
   * `required` and `unique` wait for publish, no response cache, nothing published on the change bus.
   */
  variant?: 'draft';
}

/** `versions` as the router applies it. */
export interface ResolvedVersions {
  /** Newest versions kept per record; 0 keeps all. */
  readonly max: number;
  /** Versions older than this many milliseconds are removed; undefined: none are for age. */
  readonly maxAgeMs?: number;
  readonly drafts: boolean;
  /** A draft save by the previous version's caller within this many milliseconds replaces it; 0: never. */
  readonly coalesceMs: number;
}

/** Every collection hook list, present and frozen. */
export type ResolvedHooks = { readonly [K in keyof CollectionHooks]-?: Readonly<NonNullable<CollectionHooks[K]>> };

const NO_HOOKS: readonly never[] = Object.freeze([]);

/** The hook lists of a config, each present (empty when not configured) and frozen. */
export function resolveHooks(hooks: CollectionHooks | undefined): ResolvedHooks {
  const list = <T>(value: T[] | undefined): readonly T[] => (value?.length ? Object.freeze([...value]) : NO_HOOKS);
  return Object.freeze({
    beforeValidate: list(hooks?.beforeValidate),
    beforeChange: list(hooks?.beforeChange),
    afterChange: list(hooks?.afterChange),
    beforeRead: list(hooks?.beforeRead),
    afterRead: list(hooks?.afterRead),
    beforeDelete: list(hooks?.beforeDelete),
    afterDelete: list(hooks?.afterDelete),
    afterError: list(hooks?.afterError),
  });
}

/** All collections by slug: relationship paths resolve through this. */
export type SchemaRegistry = ReadonlyMap<string, CollectionDescriptor>;

/** Most items a list field holds when it sets no `maxItems` of its own. */
export const DEFAULT_MAX_ITEMS = 1000;

/** Slug used for the uploads pseudo-collection that `upload` fields point at. */
export const UPLOADS_SLUG = '_uploads';

const VALUE_TYPES: Record<CanonicalType, ValueType> = {
  text: 'string',
  textarea: 'string',
  email: 'string',
  number: 'number',
  boolean: 'boolean',
  date: 'date',
  select: 'string',
  relationship: 'objectId',
  upload: 'objectId',
  array: 'string',
  json: 'json',
};

/** Folds the `string`/`datetime` aliases into their canonical types. */
export function canonicalType(type: FieldType): CanonicalType {
  if (type === 'string') return 'text';
  if (type === 'datetime') return 'date';
  return type;
}

/**
 * Describes one configured field. Descriptors are frozen: parsed queries that hold them are shared between
 * requests, and freezing those stops at a frozen descriptor, never reaching the host's own config objects.
 */
export function describeField(name: string, fieldConfig: FieldConfig): FieldDescriptor {
  const config: AnyFieldConfig = fieldConfig;
  const type = canonicalType(config.type);
  const valueType = type === 'array' ? VALUE_TYPES[canonicalType(config.of ?? 'text')] : VALUE_TYPES[type];
  const isArray = type === 'array' || (config.hasMany === true && ['select', 'relationship', 'upload'].includes(type));
  return Object.freeze({
    name,
    type,
    valueType,
    isArray,
    ...(isArray && { maxItems: config.maxItems ?? DEFAULT_MAX_ITEMS }),
    hidden: config.hidden === true,
    required: config.required === true,
    unique: config.unique === true,
    options: config.options,
    relationTo: type === 'upload' ? UPLOADS_SLUG : config.relationTo,
    system: false,
    config,
  });
}

/** Describes the computed keys of a collection or global (`computed`), as fields nothing stores. */
export function describeComputed(computed: Readonly<Record<string, ComputedFieldConfig>> | undefined): Readonly<Record<string, FieldDescriptor>> {
  const described: Record<string, FieldDescriptor> = {};
  for (const [name, config] of Object.entries(computed ?? {})) described[name] = describeField(name, config as FieldConfig);
  return Object.freeze(described);
}

function systemField(name: string, type: CanonicalType, valueType: ValueType): FieldDescriptor {
  return Object.freeze({
    name,
    type,
    valueType,
    isArray: false,
    hidden: false,
    required: false,
    unique: name === 'id',
    system: true,
    config: Object.freeze({ type }) as AnyFieldConfig,
  });
}

/** The built-in fields every record has; `deletedAt` only on soft-delete collections. */
export function systemFields(softDelete: boolean): FieldDescriptor[] {
  const fields = [
    systemField('id', 'text', 'objectId'),
    systemField('createdAt', 'date', 'date'),
    systemField('updatedAt', 'date', 'date'),
  ];
  if (softDelete) fields.push(systemField('deletedAt', 'date', 'date'));
  return fields;
}

export { storagePath } from '../config/index-keys';

/** Fields every list may sort on, whatever `sortable` says: the default sort's and the tie-breaker. */
export const ALWAYS_SORTABLE: readonly string[] = Object.freeze(['createdAt', 'id']);

/** Whether clients can sort on a field at all: visible and holding one scalar value (not json, not a list). */
export function canSortOn(field: FieldDescriptor): boolean {
  return !field.hidden && field.valueType !== 'json' && !field.isArray;
}

/** The fields clients may sort on when the collection declares `sortable`, else undefined (any field canSortOn). */
export function allowedSorts(collection: CollectionDescriptor): readonly string[] | undefined {
  const { sortable } = collection;
  if (!sortable) return undefined;
  return [...sortable, ...ALWAYS_SORTABLE.filter((name) => !sortable.includes(name))];
}
