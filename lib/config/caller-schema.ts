// What `GET /schema` answers, and what the MCP tools and the per-caller OpenAPI document are built from:
// the collections, globals and fields one caller may see, and what it may do with each. Public types only;
// operations/describe-schema.ts builds it.

/**
 * What a caller may do: `true` on every record, `false` on none, `'some'` on the records a `where` its
 * access rule answered selects (a rule that answers a where is decided record by record).
 */
export type Permission = boolean | 'some';

/** One field as the caller sees it. Hidden fields and fields its read rules deny are absent. */
export interface SchemaField {
  name: string;
  /** The field's type as configured (`text`, `number`, `select`, `relationship`, ...). */
  type: string;
  required: boolean;
  unique: boolean;
  /** `array` fields: the type of each element (`text`, `number`, `boolean`, `date`, `email`, `textarea`). */
  of?: string;
  /** `select` fields: the allowed values. */
  options?: readonly string[];
  /** `relationship` fields: the related collection's slug; `upload` fields: `uploads` (files: `POST /upload`, `GET /uploads/<filename>`). */
  relationTo?: string;
  /** A list of values (an `array` field, a `hasMany` select, relationship or upload). */
  hasMany?: boolean;
  /** The configured default, when it is a value (a default computed by a function is not shown). */
  default?: unknown;
  /** Written by the router, never by clients (id, createdAt, updatedAt, deletedAt). */
  system?: boolean;
  /** Accepted on writes but never read back (an auth collection's password). */
  writeOnly?: boolean;
  /** True when this caller may not set the field on a create (its create rule, or a field only the router writes). */
  readOnlyOnCreate?: boolean;
  /** True when this caller may not set the field on an update. */
  readOnlyOnUpdate?: boolean;
}

/** What a caller may do on a collection's records. The workflow rules appear on versioned collections only. */
export interface CollectionPermissions {
  read: Permission;
  create: Permission;
  update: Permission;
  delete: Permission;
  /** Versioned collections with drafts: publish and unpublish. */
  publish?: Permission;
  /** Versioned collections with drafts: read working copies. */
  readDrafts?: Permission;
  /** Versioned collections: read the history. */
  readVersions?: Permission;
}

/** What a caller may do on a global: read it, update it, and the workflow rules when it keeps versions. */
export interface GlobalPermissions {
  read: Permission;
  update: Permission;
  publish?: Permission;
  readDrafts?: Permission;
  readVersions?: Permission;
}

export interface SchemaCollection {
  slug: string;
  /** An auth collection (its records are accounts). */
  auth: boolean;
  /** Soft delete: deleted records are kept and can be restored. */
  softDelete: boolean;
  /** Keeps a history of each record; `drafts`: edits go to a working copy first, then are published. */
  versions?: { drafts: boolean };
  /** Writes of one record need the record's ETag (If-Match; the MCP `update` tool always does). */
  requireIfMatch: boolean;
  /** The caller's rights on its records. */
  access: CollectionPermissions;
  fields: SchemaField[];
}

export interface SchemaGlobal {
  slug: string;
  versions?: { drafts: boolean };
  access: GlobalPermissions;
  fields: SchemaField[];
}

/**
 * The schema as one caller sees it: only collections and globals on which it may do something, only the
 * fields it may read (or write: write-only fields it may set are listed with `writeOnly`).
 */
export interface CallerSchema {
  collections: SchemaCollection[];
  globals: SchemaGlobal[];
}
