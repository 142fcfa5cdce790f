// The delivery log over HTTP: GET /webhooks/deliveries and POST /webhooks/deliveries/:id/retry, for callers
// with role admin (with an API key, one carrying the admin scope), declared in the route table so the
// OpenAPI document describes them as they answer.
import type { Request } from 'express';
import { isAdmin } from '../config/auth-fields';
import { ForbiddenError, UnauthorizedError } from '../errors';
import { endJson, sendReadJson } from '../http/json-answer';
import { requestUser } from '../http/request-user';
import type { JsonSchema, QueryParameter, RouteDef } from '../http/route-table';
import { hasScope, insufficientScope } from '../operations/access';
import type { Runtime } from '../operations/runtime';
import { type DeliveryLog, LOG_PAGINATION, parseDeliveryQuery } from './delivery-log';
import { DELIVERY_STATUSES } from './delivery-store';

const ATTEMPT: JsonSchema = {
  type: 'object',
  required: ['at', 'durationMs'],
  properties: {
    at: { type: 'string', format: 'date-time' },
    status: { type: 'integer', description: "The receiver's HTTP status, when it answered" },
    error: { type: 'string', description: 'Why the attempt failed (a status that is not 2xx, a redirect, a timeout, a connection error, a body that could not be built)' },
    durationMs: { type: 'integer', minimum: 0 },
    response: { type: 'string', description: "The start of the receiver's answer (at most 4 KiB)" },
  },
  additionalProperties: false,
};

/** One delivery as the log shows it. */
export const DELIVERY: JsonSchema = {
  type: 'object',
  required: ['id', 'endpoint', 'type', 'recordId', 'collection', 'status', 'attempts', 'createdAt'],
  properties: {
    id: { type: 'string', description: 'Also the webhook-id header of every attempt' },
    endpoint: { type: 'string', format: 'uri', description: "The endpoint's URL" },
    type: { type: 'string', examples: ['posts.create'] },
    recordId: { type: 'string' },
    collection: { type: 'string' },
    status: { type: 'string', enum: [...DELIVERY_STATUSES] },
    attempts: { type: 'array', items: ATTEMPT },
    nextAttemptAt: { type: 'string', format: 'date-time', description: 'When the next attempt is due (pending deliveries)' },
    createdAt: { type: 'string', format: 'date-time' },
  },
  additionalProperties: false,
};

const PAGE = { type: 'integer', minimum: 1 };
const SIZE = { type: 'integer', minimum: 1, maximum: LOG_PAGINATION.maxLimit };
const QUERY: QueryParameter[] = [
  { name: 'status', description: 'Only deliveries in this state', schema: { type: 'string', enum: [...DELIVERY_STATUSES] } },
  { name: 'endpoint', description: "Only deliveries to this endpoint (its URL)", schema: { type: 'string' } },
  { name: 'page', description: 'Page number, from 1 (default 1)', schema: PAGE },
  { name: 'limit', description: `Page size (default ${LOG_PAGINATION.defaultLimit}); answers in the docs envelope`, schema: SIZE },
  { name: 'perPage', description: `Page size (default ${LOG_PAGINATION.defaultLimit}); answers in the data envelope`, schema: SIZE },
];

/** Both envelopes a page of the log may come in (the request's dialect decides, as for collection lists). */
const PAGE_OF_DELIVERIES: JsonSchema = {
  oneOf: [
    {
      type: 'object',
      required: ['data', 'meta'],
      properties: {
        data: { type: 'array', items: DELIVERY },
        meta: {
          type: 'object',
          required: ['total', 'page', 'perPage', 'totalPages'],
          properties: { total: { type: 'integer' }, page: { type: 'integer' }, perPage: { type: 'integer' }, totalPages: { type: 'integer' } },
        },
      },
    },
    {
      type: 'object',
      required: ['docs', 'totalDocs', 'limit', 'page', 'totalPages', 'hasNextPage', 'hasPrevPage'],
      properties: {
        docs: { type: 'array', items: DELIVERY },
        totalDocs: { type: 'integer' },
        limit: { type: 'integer' },
        page: { type: 'integer' },
        totalPages: { type: 'integer' },
        hasNextPage: { type: 'boolean' },
        hasPrevPage: { type: 'boolean' },
      },
    },
  ],
};

const ADMIN_ERRORS = {
  401: { description: 'No credentials, or invalid ones' },
  403: { description: 'The caller does not have role admin, or its API key lacks the admin scope' },
};

/** The caller, when it may read the log: role admin, and with an API key the admin scope. */
async function requireAdmin(runtime: Runtime, req: Request): Promise<void> {
  const user = await requestUser(runtime, req);
  if (!user) throw new UnauthorizedError();
  if (!isAdmin(user)) throw new ForbiddenError('The webhook delivery log is for admins.');
  if (!hasScope(user, 'admin')) throw insufficientScope('admin');
}

export function webhookRoutes(runtime: Runtime, log: DeliveryLog): RouteDef[] {
  return [
    {
      method: 'get',
      path: '/webhooks/deliveries',
      operationId: 'webhooks.deliveries.list',
      summary: 'List webhook deliveries, newest first, with their attempts',
      tags: ['webhooks'],
      auth: 'required',
      query: QUERY,
      responses: {
        200: { description: 'A page of deliveries', shape: { kind: 'schema', schema: PAGE_OF_DELIVERIES } },
        400: { description: 'An unknown parameter, a status that is none of pending, delivered, failed, or a bad page or size' },
        ...ADMIN_ERRORS,
      },
      async handler(req, res) {
        await requireAdmin(runtime, req);
        sendReadJson(res, await log.read(parseDeliveryQuery(req.query, runtime.config.query)));
      },
    },
    {
      method: 'post',
      path: '/webhooks/deliveries/:id/retry',
      operationId: 'webhooks.deliveries.retry',
      summary: 'Send a failed (or delivered) delivery again: one attempt, same webhook-id',
      description: 'A pending delivery is queued already: it is answered as it is.',
      tags: ['webhooks'],
      auth: 'required',
      responses: {
        202: { description: 'Queued; the delivery as it is now', shape: { kind: 'schema', schema: DELIVERY } },
        ...ADMIN_ERRORS,
        404: { description: 'No such delivery (or it expired)' },
        409: { description: 'The delivery has no body to send (a read hook failed while it was built): `delivery_not_retryable`' },
      },
      async handler(req, res) {
        await requireAdmin(runtime, req);
        endJson(res.status(202), await log.retry(String(req.params.id)));
      },
    },
  ];
}
