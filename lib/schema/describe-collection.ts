// Builds the descriptor registry from collection and global configs (no Mongoose involved),
// so the pure query layer and its tests can run from plain config objects.
import { describeAuthFields } from './auth-fields';
import { indexKeys } from '../config/index-keys';
import type { CollectionConfig, GlobalConfig } from '../config/types';
import {
  type CollectionDescriptor,
  type FieldDescriptor,
  type SchemaRegistry,
  describeComputed,
  describeField,
  resolveHooks,
  systemFields,
} from './descriptors';

const DEFAULT_LIMIT = 10;
const MAX_LIMIT = 100;
const MAX_BATCH = 1000;

/** Describes one collection: its configured fields plus id/createdAt/updatedAt(/deletedAt). */
export function describeCollection(config: CollectionConfig): CollectionDescriptor {
  const softDelete = config.softDelete === true;
  const fields: Record<string, FieldDescriptor> = {};
  for (const field of systemFields(softDelete)) fields[field.name] = field;
  // Auth fields first, so records read { id, email, name, role, verified, ...host fields }.
  if (config.auth) for (const field of describeAuthFields(config.fields)) fields[field.name] = field;
  for (const [name, field] of Object.entries(config.fields)) fields[name] = describeField(name, field);
  const searchFields =
    config.search ??
    Object.values(fields)
      .filter((f) => !f.system && !f.hidden && !f.isArray && ['text', 'textarea', 'email'].includes(f.type))
      .map((f) => f.name);
  return Object.freeze({
    slug: config.slug,
    fields: Object.freeze(fields),
    searchFields: Object.freeze([...searchFields]),
    softDelete,
    isAuth: Boolean(config.auth),
    isGlobal: false,
    pagination: {
      defaultLimit: config.pagination?.defaultLimit ?? DEFAULT_LIMIT,
      maxLimit: config.pagination?.maxLimit ?? MAX_LIMIT,
    },
    maxBatchSize: config.maxBatchSize ?? MAX_BATCH,
    requireIfMatch: config.requireIfMatch === true,
    cacheTtl: config.cache?.ttl,
    access: config.access ?? {},
    sortable: config.sortable ? Object.freeze([...config.sortable]) : undefined,
    indexes: Object.freeze((config.indexes ?? []).map((index) => indexKeys(index.fields))),
    hooks: resolveHooks(config.hooks),
    ...(config.collation && { collation: Object.freeze({ ...config.collation }) }),
    existing: config.existing === true,
    buildIndexes: config.buildIndexes ?? config.existing !== true,
    computed: describeComputed(config.computed),
  });
}

/** Describes a global: its fields plus createdAt/updatedAt (no list, no soft delete). */
export function describeGlobal(config: GlobalConfig): CollectionDescriptor {
  // A global's hooks are a subset of a collection's: the lists it cannot take stay empty.
  const described = describeCollection({ slug: config.slug, fields: config.fields, access: config.access, hooks: config.hooks, requireIfMatch: config.requireIfMatch, computed: config.computed });
  return Object.freeze({ ...described, isGlobal: true });
}

/** The registry of every collection, keyed by slug. */
export function describeCollections(collections: readonly CollectionConfig[]): SchemaRegistry {
  return new Map(collections.map((c) => [c.slug, describeCollection(c)]));
}
