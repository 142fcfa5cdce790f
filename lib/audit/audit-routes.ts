// The audit log over HTTP, read-only (only GET is declared, so any other method is the dispatcher's 405):
// `GET /audit` (a page, newest first, in the collections' cursor envelope), `GET /<slug>/:id/audit` and
// `GET /globals/<slug>/audit` (one record's or global's entries), `GET /audit/export` (every matching entry as
// NDJSON, streamed from a cursor at the client's pace: memory stays flat whatever the size, and a bad filter
// is a 400 before the first byte). Declared in the route table, so the OpenAPI document describes them.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { checkRecordId } from '../operations/record-id';
import type { Request, Response } from 'express';
import type { Logger } from '../config/types';
import { sendReadJson } from '../http/json-answer';
import { readQuery } from '../http/read-query';
import { requestUser } from '../http/request-user';
import { reachedUnlessRefused } from '../http/route-reach';
import type { JsonSchema, QueryParameter, RouteCaller, RouteDef, RouteResponse } from '../http/route-table';
import type { Runtime } from '../operations/runtime';
import { combineAnd } from '../query';
import type { WhereNode } from '../query/types';
import { toLoggableError } from '../util/loggable-error';
import { auditReadAllowed } from './audit-access';
import type { ResolvedAudit } from './audit-options';
import { ACTOR_TYPES, AUDIT_ACTIONS, AUDIT_PAGINATION, EXPORT_SORT, FILTER_NAMES, type AuditQuery, parseAuditQuery, parseAuditWhere, readAuditPage } from './audit-query';
import { type AuditStore, entryOfRow } from './audit-store';
import type { EntryQueue } from './entry-queue';

/** One entry as the routes, the export and the sink give it. */
export const AUDIT_ENTRY: JsonSchema = {
  type: 'object',
  required: ['id', 'at', 'action', 'actor', 'resource', 'outcome', 'request'],
  properties: {
    id: { type: 'string' },
    at: { type: 'string', format: 'date-time' },
    action: { type: 'string', enum: [...AUDIT_ACTIONS] },
    actor: {
      type: 'object',
      required: ['type'],
      properties: {
        type: { type: 'string', enum: [...ACTOR_TYPES] },
        id: { type: 'string' },
        collection: { type: 'string' },
        apiKeyId: { type: 'string' },
        scopes: { type: 'array', items: { type: 'string', enum: ['read', 'write', 'admin'] } },
        name: { type: 'string', description: "A system actor's flow (`auth.login`...)" },
      },
      additionalProperties: false,
    },
    resource: {
      type: 'object',
      properties: { collection: { type: 'string' }, global: { type: 'string' }, id: { type: 'string' } },
      additionalProperties: false,
    },
    version: { type: 'integer', description: 'The version the change produced (versioned collections)' },
    changedFields: { type: 'array', items: { type: 'string' }, description: 'Names only, never values, never hidden fields' },
    outcome: { type: 'object', required: ['status'], properties: { status: { type: 'integer' }, code: { type: 'string' } }, additionalProperties: false },
    request: {
      type: 'object',
      required: ['origin'],
      properties: {
        id: { type: 'string', description: 'Also the X-Request-Id header of its answer' },
        method: { type: 'string' },
        path: { type: 'string', description: 'Without the query string' },
        ip: { type: 'string' },
        userAgent: { type: 'string' },
        origin: { type: 'string', enum: ['rest', 'local', 'schedule', 'mcp'] },
      },
      additionalProperties: false,
    },
    idempotencyKey: { type: 'string' },
  },
  additionalProperties: false,
};

const PAGE_OF_ENTRIES: JsonSchema = {
  type: 'object',
  required: ['data', 'meta'],
  properties: {
    data: { type: 'array', items: AUDIT_ENTRY },
    meta: {
      type: 'object',
      required: ['hasNextPage', 'hasPrevPage', 'nextCursor', 'prevCursor'],
      properties: {
        hasNextPage: { type: 'boolean' },
        hasPrevPage: { type: 'boolean' },
        nextCursor: { type: ['string', 'null'] },
        prevCursor: { type: ['string', 'null'] },
      },
    },
  },
};

const WHERE: QueryParameter = {
  name: 'where',
  description: `Conditions on ${FILTER_NAMES.join(', ')}, in the collections' where dialects (JSON or brackets): \`{"action":"delete","at":{"gte":"2026-01-01"}}\``,
  schema: { type: 'string' },
};
const PAGE_PARAMETERS: QueryParameter[] = [
  WHERE,
  { name: 'limit', description: `Page size (default ${AUDIT_PAGINATION.defaultLimit}, at most ${AUDIT_PAGINATION.maxLimit})`, schema: { type: 'integer', minimum: 1, maximum: AUDIT_PAGINATION.maxLimit } },
  { name: 'perPage', description: 'Page size, as `limit`', schema: { type: 'integer', minimum: 1, maximum: AUDIT_PAGINATION.maxLimit } },
  { name: 'cursor', description: 'A page: empty for the newest entries, then a nextCursor or prevCursor as given', schema: { type: 'string' } },
];

const READ_ERRORS: Record<number, RouteResponse> = {
  400: { description: 'An unknown parameter, field or operator, a value of the wrong type, a bad page size or cursor' },
  401: { description: 'No credentials, or invalid ones' },
  403: { description: 'Not allowed to read the audit log (by default: role admin, and with an API key the admin scope)' },
};
const TAGS = ['audit'];

/** Entries written to the export at once: one write per batch, not per line. */
const EXPORT_BATCH_BYTES = 64 * 1024;

/** The export's lines, batched, pulled by the response as it drains (pipeline's backpressure). */
async function* ndjson(store: AuditStore, query: AuditQuery): AsyncGenerator<string> {
  let batch = '';
  // Leaving the loop (the client gone, the response destroyed) closes the driver cursor.
  for await (const row of store.stream(query.filter, EXPORT_SORT)) {
    batch += `${JSON.stringify(entryOfRow(row))}\n`;
    if (batch.length >= EXPORT_BATCH_BYTES) {
      yield batch;
      batch = '';
    }
  }
  if (batch) yield batch;
}

export function auditRoutes(runtime: Runtime, store: AuditStore, queue: EntryQueue, options: ResolvedAudit, logger: Logger): RouteDef[] {
  /** The query of a read, the caller's read rule's where ANDed in; 401/403 before anything is read. */
  async function queryOf(req: Request, paged: boolean, scope?: WhereNode): Promise<AuditQuery> {
    const allowed = await auditReadAllowed(options.read, await requestUser(runtime, req), req);
    const query = parseAuditQuery(readQuery(req), runtime.config.query, combineAnd(allowed, scope), paged);
    // This process's own entries are read: those queued are stored first.
    await queue.flush();
    return query;
  }
  const page = async (req: Request, res: Response, scope?: WhereNode) => {
    res.set('Cache-Control', 'private, no-store');
    sendReadJson(res, await readAuditPage(store, await queryOf(req, true, scope)));
  };
  // A caller the read rule refuses outright has no audit route in its per-caller document.
  const reach = ({ user, req }: RouteCaller) => reachedUnlessRefused(() => auditReadAllowed(options.read, user, req));
  const recordRoutes: RouteDef[] = [];
  for (const [slug, collection] of runtime.collections) {
    // An auth collection's accounts are read with GET /audit?where[resource.id]=...: `/<slug>/:id/audit` would
    // be ambiguous beside its `/<slug>/api-keys/:id` (an OpenAPI document may not hold both).
    if (!options.records(slug) || collection.descriptor.isAuth) continue;
    recordRoutes.push({
      method: 'get',
      path: `/${slug}/:id/audit`,
      operationId: `${slug}.audit`,
      summary: `The audit log of one ${slug} record, newest first`,
      tags: TAGS,
      auth: 'required',
      reach,
      query: PAGE_PARAMETERS,
      responses: { 200: { description: "A page of the record's entries", shape: { kind: 'schema', schema: PAGE_OF_ENTRIES } }, ...READ_ERRORS },
      async handler(req, res) {
        // A malformed id names no record (a 404, as the record's own routes answer), not an empty history.
        const id = checkRecordId(req.params.id).toLowerCase();
        await page(req, res, scopeOf({ 'resource.collection': { eq: slug }, 'resource.id': { eq: id } }));
      },
    });
  }
  for (const [slug] of runtime.globals) {
    if (!options.records(slug)) continue;
    recordRoutes.push({
      method: 'get',
      path: `/globals/${slug}/audit`,
      operationId: `globals.${slug}.audit`,
      summary: `The audit log of the ${slug} global, newest first`,
      tags: TAGS,
      auth: 'required',
      reach,
      query: PAGE_PARAMETERS,
      responses: { 200: { description: "A page of the global's entries", shape: { kind: 'schema', schema: PAGE_OF_ENTRIES } }, ...READ_ERRORS },
      async handler(req, res) {
        await page(req, res, scopeOf({ 'resource.global': { eq: slug } }));
      },
    });
  }

  return [
    {
      method: 'get',
      path: '/audit',
      operationId: 'audit.list',
      summary: 'List audit entries, newest first',
      description: 'Who did what, to which record, when, and with what outcome. Entries name fields, never values.',
      tags: TAGS,
      auth: 'required',
      reach,
      query: PAGE_PARAMETERS,
      responses: { 200: { description: 'A page of entries', shape: { kind: 'schema', schema: PAGE_OF_ENTRIES } }, ...READ_ERRORS },
      async handler(req, res) {
        await page(req, res);
      },
    },
    {
      method: 'get',
      path: '/audit/export',
      operationId: 'audit.export',
      summary: 'Every matching audit entry as NDJSON (one entry per line), newest first, streamed',
      tags: TAGS,
      auth: 'required',
      reach,
      query: [WHERE],
      // Streams at the client's pace, for as long as it takes: no request deadline.
      config: { deadline: false },
      responses: { 200: { description: 'One JSON entry per line', contentType: 'application/x-ndjson' }, ...READ_ERRORS },
      async handler(req, res) {
        // Access and the filter first: a refusal or a bad filter is a problem answer, before the first byte.
        const query = await queryOf(req, false);
        res.status(200).set({ 'Content-Type': 'application/x-ndjson; charset=utf-8', 'Cache-Control': 'private, no-store', 'X-Content-Type-Options': 'nosniff' });
        try {
          await pipeline(Readable.from(ndjson(store, query)), res);
        } catch (error) {
          // Once lines are on the wire the status is sent: a failure ends the response short (a client
          // reading NDJSON sees an unfinished line or a missing end); the log says why.
          if (!res.headersSent) throw error;
          if (!req.socket.destroyed) logger.warn('content-router: an audit export ended early:', toLoggableError(error));
        }
      },
    },
    ...recordRoutes,
  ];
}

/** The entries of one record or global: a where the route fixes, trusted. */
function scopeOf(conditions: Record<string, { eq: string }>): WhereNode | undefined {
  return parseAuditWhere(conditions, true);
}
