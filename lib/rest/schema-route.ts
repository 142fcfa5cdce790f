// `GET /schema`: the collections, globals and fields the caller may see, and what it may do on each
// (describeSchema). What a client generator or an admin UI reads to know what to offer this caller.
import type { JsonSchema, RouteDef } from '../http/route-table';
import { sendReadJson } from '../http/json-answer';
import { requestUser } from '../http/request-user';
import { describeSchema } from '../operations/describe-schema';
import type { Runtime } from '../operations/runtime';

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
  publish: { ...PERMISSION, description: 'Drafts only: publish and unpublish.' },
  readDrafts: { ...PERMISSION, description: 'Drafts only: read working copies.' },
  readVersions: { ...PERMISSION, description: 'Versions only: read the history.' },
};

const VERSIONS: JsonSchema = {
  type: 'object',
  description: 'Keeps a history; `drafts`: edits go to a working copy, then are published.',
  properties: { drafts: { type: 'boolean' } },
  required: ['drafts'],
  additionalProperties: false,
};

const FIELDS: JsonSchema = { type: 'array', items: FIELD };

/** The answer of `GET /schema` (the CallerSchema type) as a JSON Schema. */
export const CALLER_SCHEMA_JSON: JsonSchema = {
  type: 'object',
  description: 'The collections and globals on which the caller may do something, the fields it may read, and its rights.',
  properties: {
    collections: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          slug: { type: 'string' },
          auth: { type: 'boolean', description: 'An auth collection (its records are accounts).' },
          softDelete: { type: 'boolean' },
          versions: VERSIONS,
          requireIfMatch: { type: 'boolean', description: "Writes of one record need the record's ETag in If-Match." },
          access: {
            type: 'object',
            properties: { read: PERMISSION, create: PERMISSION, update: PERMISSION, delete: PERMISSION, ...WORKFLOW_RIGHTS },
            required: ['read', 'create', 'update', 'delete'],
            additionalProperties: false,
          },
          fields: FIELDS,
        },
        required: ['slug', 'auth', 'softDelete', 'requireIfMatch', 'access', 'fields'],
        additionalProperties: false,
      },
    },
    globals: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          slug: { type: 'string' },
          versions: VERSIONS,
          access: {
            type: 'object',
            properties: { read: PERMISSION, update: PERMISSION, ...WORKFLOW_RIGHTS },
            required: ['read', 'update'],
            additionalProperties: false,
          },
          fields: FIELDS,
        },
        required: ['slug', 'access', 'fields'],
        additionalProperties: false,
      },
    },
  },
  required: ['collections', 'globals'],
  additionalProperties: false,
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
      200: { description: "The caller's schema", shape: { kind: 'schema', schema: CALLER_SCHEMA_JSON } },
      401: { description: 'Invalid credentials' },
    },
    async handler(req, res) {
      sendReadJson(res, await describeSchema({ runtime, req, user: await requestUser(runtime, req) }));
    },
  };
}
