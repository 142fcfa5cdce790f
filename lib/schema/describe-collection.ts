// Builds the descriptor registry from collection and global configs (no Mongoose involved),
// so the pure query layer and its tests can run from plain config objects.
import { describeAuthFields } from './auth-fields';
import { indexKeys } from '../config/index-keys';
import type { CollectionConfig, GlobalConfig } from '../config/types';
import { parseDuration } from '../util/duration';
import {
  type CollectionDescriptor,
  type ResolvedVersions,
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
    ...(resolveVersions(config.versions) && { versions: resolveVersions(config.versions) }),
  });
}

const DEFAULT_MAX_VERSIONS = 50;
const DEFAULT_COALESCE_MS = 5 * 60_000;

/** `versions` with its defaults applied; undefined when off. The config was checked (validate-versions.ts). */
export function resolveVersions(versions: CollectionConfig['versions']): ResolvedVersions | undefined {
  if (!versions) return undefined;
  const options = versions === true ? {} : versions;
  const maxAgeMs = options.maxAge === undefined ? undefined : parseDuration(options.maxAge);
  return Object.freeze({
    max: options.max ?? DEFAULT_MAX_VERSIONS,
    ...(maxAgeMs !== undefined && { maxAgeMs }),
    drafts: options.drafts === true,
    coalesceMs: options.coalesce === undefined ? DEFAULT_COALESCE_MS : options.coalesce === 0 ? 0 : (parseDuration(options.coalesce) ?? DEFAULT_COALESCE_MS),
  });
}

/**
 * The descriptor of a drafts collection's working copies: the same fields, but `required` and `unique` wait
 * for publish, reads are never cached, and reading them is the `readDrafts` rule (operations/access.ts).
 */
export function describeDrafts(published: CollectionDescriptor): CollectionDescriptor {
  const fields = Object.fromEntries(Object.entries(published.fields).map(([name, field]) => [name, field.system ? field : Object.freeze({ ...field, required: false, unique: false })]));
  // The same rules: the access check reads a working copy under readDrafts (operations/access.ts).
  return Object.freeze({ ...published, fields: Object.freeze(fields), cacheTtl: undefined, variant: 'draft' as const });
}

/** Describes a global: its fields plus createdAt/updatedAt (no list, no soft delete). */
export function describeGlobal(config: GlobalConfig): CollectionDescriptor {
  // A global's hooks are a subset of a collection's: the lists it cannot take stay empty.
  const described = describeCollection({ slug: config.slug, fields: config.fields, access: config.access, hooks: config.hooks, requireIfMatch: config.requireIfMatch, computed: config.computed, versions: config.versions });
  return Object.freeze({ ...described, isGlobal: true });
}

/** The registry of every collection, keyed by slug. */
export function describeCollections(collections: readonly CollectionConfig[]): SchemaRegistry {
  return new Map(collections.map((c) => [c.slug, describeCollection(c)]));
}
