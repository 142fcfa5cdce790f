// `GET /schema`: the collections, globals and fields the caller may see, and what it may do on each
// (describeSchema). What a client generator or an admin UI reads to know what to offer this caller.
import type { JsonSchema, RouteDef } from '../http/route-table';
import { sendReadJson } from '../http/json-answer';
import { requestUser } from '../http/request-user';
import { describeSchema } from '../operations/describe-schema';
import type { Runtime } from '../operations/runtime';

const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

const PERMISSION: JsonSchema = {
  description: "`true`: on every record; `false`: on none; `'some'`: on the records the access rule's where selects.",
  anyOf: [{ type: 'boolean' }, { const: 'some' }],
};

const FIELD: JsonSchema = {
  type: 'object',
  description: 'A field the caller may read (or, `writeOnly`, set without reading it back).',
  properties: {
    name: { type: 'string' },
    type: { type: 'string', description: 'The configured type (`text`, `number`, `select`, `relationship`, ...); `id` and `date` for the system fields.' },
    required: { type: 'boolean' },
    unique: { type: 'boolean' },
    of: { type: 'string', description: "An array field: its elements' type (`text`, `textarea`, `email`, `number`, `boolean`, `date`)." },
    options: { type: 'array', items: { type: 'string' }, description: 'A select field: its values.' },
    relationTo: { type: 'string', description: 'A relationship field: the related collection; an upload field: `uploads` (files: `POST /upload`, `GET /uploads/{filename}`).' },
    hasMany: { type: 'boolean', description: 'A list of values.' },
    default: { description: 'The configured default, when it is a value.' },
    system: { type: 'boolean', description: 'Written by the router, never by clients.' },
    writeOnly: { type: 'boolean', description: 'Accepted on writes, never read back (a password).' },
    readOnlyOnCreate: { type: 'boolean', description: 'The caller may not set it on a create.' },
    readOnlyOnUpdate: { type: 'boolean', description: 'The caller may not set it on an update.' },
  },
  required: ['name', 'type', 'required', 'unique'],
  additionalProperties: false,
};

const WORKFLOW_RIGHTS = {
  publish: { ...ref('Permission'), description: 'Drafts only: publish and unpublish.' },
  readDrafts: { ...ref('Permission'), description: 'Drafts only: read working copies.' },
  readVersions: { ...ref('Permission'), description: 'Versions only: read the history.' },
};

const VERSIONS: JsonSchema = {
  type: 'object',
  description: 'Keeps a history; `drafts`: edits go to a working copy, then are published.',
  properties: { drafts: { type: 'boolean' } },
  required: ['drafts'],
  additionalProperties: false,
};

const FIELDS: JsonSchema = { type: 'array', items: ref('SchemaField') };

/**
 * The answer of `GET /schema` as JSON Schemas, named as the package's TypeScript types are (lib/config/caller-schema.ts):
 * the document adds them as components, so a client generator names the types too.
 */
export const CALLER_SCHEMA_COMPONENTS: Readonly<Record<string, JsonSchema>> = {
  CallerSchema: {
    type: 'object',
    description: 'The collections and globals on which the caller may do something, the fields it may read, and its rights.',
    properties: {
      collections: { type: 'array', items: ref('SchemaCollection') },
      globals: { type: 'array', items: ref('SchemaGlobal') },
    },
    required: ['collections', 'globals'],
    additionalProperties: false,
  },
  SchemaCollection: {
    type: 'object',
    description: 'A collection as the caller sees it.',
    properties: {
      slug: { type: 'string' },
      auth: { type: 'boolean', description: 'An auth collection (its records are accounts).' },
      softDelete: { type: 'boolean' },
      versions: VERSIONS,
      requireIfMatch: { type: 'boolean', description: "Writes of one record need the record's ETag in If-Match." },
      access: ref('CollectionPermissions'),
      fields: FIELDS,
    },
    required: ['slug', 'auth', 'softDelete', 'requireIfMatch', 'access', 'fields'],
    additionalProperties: false,
  },
  SchemaGlobal: {
    type: 'object',
    description: 'A global as the caller sees it (it has no id: its record is the fields and the timestamps).',
    properties: { slug: { type: 'string' }, versions: VERSIONS, access: ref('GlobalPermissions'), fields: FIELDS },
    required: ['slug', 'access', 'fields'],
    additionalProperties: false,
  },
  SchemaField: FIELD,
  Permission: PERMISSION,
  CollectionPermissions: {
    type: 'object',
    description: "The caller's rights on a collection's records.",
    properties: { read: ref('Permission'), create: ref('Permission'), update: ref('Permission'), delete: ref('Permission'), ...WORKFLOW_RIGHTS },
    required: ['read', 'create', 'update', 'delete'],
    additionalProperties: false,
  },
  GlobalPermissions: {
    type: 'object',
    description: "The caller's rights on a global.",
    properties: { read: ref('Permission'), update: ref('Permission'), ...WORKFLOW_RIGHTS },
    required: ['read', 'update'],
    additionalProperties: false,
  },
};

/** The route: any caller (anonymous too) gets its own schema; a bad credential is the usual 401. */
export function schemaRoute(runtime: Runtime): RouteDef {
  return {
    method: 'get',
    path: '/schema',
    operationId: 'schema.get',
    summary: "Get the caller's schema",
    description:
      'The collections and globals on which the caller may do something, the fields it may read (hidden fields and fields its read rules deny are absent) and, for each, what its access rules let it do.',
    tags: ['schema'],
    auth: 'optional',
    responses: {
      200: { description: "The caller's schema", shape: { kind: 'named', name: 'CallerSchema', schemas: CALLER_SCHEMA_COMPONENTS } },
      401: { description: 'Invalid credentials' },
    },
    async handler(req, res) {
      sendReadJson(res, await describeSchema({ runtime, req, user: await requestUser(runtime, req) }));
    },
  };
}
