// The schemas every document shares (problem details, the ObjectId string, the page and cursor meta, and
// the file record where files are shown), and the answer envelopes of each collection: the three list
// envelopes (page, Form A `docs`, cursor), which a list answers in depending on the parameters it got,
// and the batch of a batch create.
import type { JsonSchema } from '../http/route-table';
import { FILE_RECORD_FIELDS, type FileRecordValue } from '../schema/file-record';
import type { ComponentNames } from './component-names';
import { nullable, ref } from './record-schemas';

const integer = { type: 'integer', minimum: 0 };
const flag = { type: 'boolean' };

/** Problem details, ids and page meta: the components every document has, whatever its collections. */
export const SHARED_SCHEMAS: Record<string, JsonSchema> = {
  ObjectId: { type: 'string', pattern: '^[0-9a-fA-F]{24}$', description: 'A record id (24 hex digits).' },
  ProblemDetail: {
    type: 'object',
    properties: {
      field: { type: 'string' },
      index: { type: 'integer', minimum: 0, description: 'The batch item (its position in the request).' },
      id: { type: 'string', description: 'The record of a bulk write by where.' },
      message: { type: 'string' },
      code: { type: 'string' },
    },
    required: ['message', 'code'],
  },
  Problem: {
    type: 'object',
    description: 'RFC 9457 problem details (application/problem+json).',
    properties: {
      type: { type: 'string', description: 'A stable URN per error code.' },
      title: { type: 'string' },
      status: { type: 'integer', minimum: 400, maximum: 599 },
      detail: { type: 'string' },
      code: { type: 'string', description: 'A stable machine-readable error code.' },
      errors: { type: 'array', items: ref('ProblemDetail') },
    },
    required: ['type', 'title', 'status', 'detail', 'code'],
  },
  PageMeta: {
    type: 'object',
    description: 'Where a page is. total and totalPages are left out when count=false; hasNextPage and hasPrevPage then say whether there is more.',
    properties: { total: integer, page: integer, perPage: integer, totalPages: integer, hasNextPage: flag, hasPrevPage: flag },
    required: ['page', 'perPage'],
    additionalProperties: false,
  },
  CursorMeta: {
    type: 'object',
    description: 'Where a cursor page is: pass nextCursor or prevCursor as `cursor` for the next or previous page (null: there is none).',
    properties: { hasNextPage: flag, hasPrevPage: flag, nextCursor: { type: ['string', 'null'] }, prevCursor: { type: ['string', 'null'] } },
    required: ['hasNextPage', 'hasPrevPage', 'nextCursor', 'prevCursor'],
    additionalProperties: false,
  },
};

/**
 * The list answer of a collection (`<Slug>List`): one of the three envelopes, each its own named, closed
 * component (additionalProperties false), so a body matches one and only one. `anyOf` rather than `oneOf`:
 * the page and cursor envelopes share their keys and differ inside their closed metas, which linters do not
 * compare (Redocly's no-illogical-composition-keywords flags such a oneOf); validation is the same.
 */
export function listSchemas(slug: string, names: ComponentNames): Record<string, JsonSchema> {
  const items = { type: 'array', items: ref(names.record) };
  return {
    [names.list]: {
      description: `A page of ${slug}. \`cursor\` -> cursor envelope; \`limit\` without \`perPage\` -> docs envelope; otherwise the configured default.`,
      anyOf: [ref(names.page), ref(names.docsPage), ref(names.cursorPage)],
    },
    [names.page]: {
      type: 'object',
      description: `A page of ${slug} in the page envelope.`,
      properties: { data: items, meta: ref('PageMeta') },
      required: ['data', 'meta'],
      additionalProperties: false,
    },
    [names.docsPage]: {
      type: 'object',
      description: `A page of ${slug} in the docs envelope (the request used \`limit\`). totalDocs and totalPages are left out when count=false.`,
      properties: { docs: items, totalDocs: integer, limit: integer, page: integer, totalPages: integer, hasNextPage: flag, hasPrevPage: flag },
      required: ['docs', 'limit', 'page', 'hasNextPage', 'hasPrevPage'],
      additionalProperties: false,
    },
    [names.cursorPage]: {
      type: 'object',
      description: `A page of ${slug} in the cursor envelope (the request used \`cursor\`).`,
      properties: { data: items, meta: ref('CursorMeta') },
      required: ['data', 'meta'],
      additionalProperties: false,
    },
  };
}

/** `{ data: [...] }` of a batch create: the created records (`<Slug>Batch`), or the body's inputs, at most `maxItems`. */
export function batchSchema(slug: string, item: string, maxItems?: number): JsonSchema {
  return {
    type: 'object',
    description:
      maxItems === undefined
        ? `The records of ${slug} a batch created, in the order sent. On a server without transactions, \`errors\` lists the items another writer raced (a unique value taken after the batch was checked); the others were created.`
        : `A batch of new records of ${slug}: all are created, or none (a record raced by another writer on a server without transactions is reported apart).`,
    properties: {
      data: { type: 'array', items: ref(item), ...(maxItems !== undefined && { maxItems }) },
      ...(maxItems === undefined && {
        errors: {
          type: 'array',
          items: {
            type: 'object',
            properties: { index: { type: 'integer', minimum: 0 }, status: { type: 'integer' }, code: { type: 'string' }, message: { type: 'string' } },
            required: ['index', 'status', 'code', 'message'],
          },
        },
      }),
    },
    required: ['data'],
    additionalProperties: false,
  };
}

const FILE_VALUES: Record<FileRecordValue, JsonSchema> = {
  id: ref('ObjectId'),
  text: { type: 'string' },
  integer: { type: 'integer', minimum: 0 },
  date: { type: 'string', format: 'date-time' },
};

/**
 * The file record (`FileRecord`): what POST /upload answers and what an `upload` field populates to. Closed,
 * every field required: the uploader's id it keeps for access rules is never shown.
 */
export function fileRecordSchema(): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const field of FILE_RECORD_FIELDS) {
    const value = field.nullable ? nullable(FILE_VALUES[field.type]) : FILE_VALUES[field.type];
    properties[field.name] = field.description ? { ...value, description: field.description } : value;
  }
  return {
    type: 'object',
    description: 'A stored file, as POST /upload answers it and as `depth` or `include` populate an upload field the caller may read.',
    properties,
    required: Object.keys(properties),
    additionalProperties: false,
  };
}
