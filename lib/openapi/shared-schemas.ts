// The schemas every document shares: problem details, the ObjectId string, and the three list
// envelopes (page, Form A `docs`, cursor), which a list answers in depending on the parameters it got.
import type { JsonSchema } from '../http/route-table';
import { ref } from './record-schemas';

/** RFC 9457 problem details, as every 4xx/5xx of the router is answered. */
export const PROBLEM_SCHEMAS: Record<string, JsonSchema> = {
  ObjectId: { type: 'string', pattern: '^[0-9a-fA-F]{24}$', description: 'A record id (24 hex digits).' },
  ProblemDetail: {
    type: 'object',
    properties: {
      field: { type: 'string' },
      index: { type: 'integer', minimum: 0 },
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
};

const integer = { type: 'integer', minimum: 0 };
const flag = { type: 'boolean' };

/**
 * The list answer of a collection: exactly one of the three envelopes. Each is closed
 * (additionalProperties false), so a body matches one and only one.
 */
export function listSchema(slug: string, record: string): JsonSchema {
  const items = { type: 'array', items: ref(record) };
  return {
    description: `A page of ${slug}. \`cursor\` -> cursor envelope; \`limit\` without \`perPage\` -> docs envelope; otherwise the configured default.`,
    oneOf: [
      {
        title: 'Page envelope',
        type: 'object',
        properties: {
          data: items,
          meta: {
            type: 'object',
            description: 'total and totalPages are left out when count=false; hasNextPage/hasPrevPage then say whether there is more.',
            properties: { total: integer, page: integer, perPage: integer, totalPages: integer, hasNextPage: flag, hasPrevPage: flag },
            required: ['page', 'perPage'],
            additionalProperties: false,
          },
        },
        required: ['data', 'meta'],
        additionalProperties: false,
      },
      {
        title: 'Docs envelope (limit=)',
        type: 'object',
        description: 'totalDocs and totalPages are left out when count=false.',
        properties: { docs: items, totalDocs: integer, limit: integer, page: integer, totalPages: integer, hasNextPage: flag, hasPrevPage: flag },
        required: ['docs', 'limit', 'page', 'hasNextPage', 'hasPrevPage'],
        additionalProperties: false,
      },
      {
        title: 'Cursor envelope (cursor=)',
        type: 'object',
        properties: {
          data: items,
          meta: {
            type: 'object',
            properties: {
              hasNextPage: flag,
              hasPrevPage: flag,
              nextCursor: { type: ['string', 'null'] },
              prevCursor: { type: ['string', 'null'] },
            },
            required: ['hasNextPage', 'hasPrevPage', 'nextCursor', 'prevCursor'],
            additionalProperties: false,
          },
        },
        required: ['data', 'meta'],
        additionalProperties: false,
      },
    ],
  };
}
