// The REST routes of one collection as route-table entries: parse the request, call the shared
// operation, shape the answer. List, count, get, create (one or a batch), update, delete, and restore.
import type { Request } from 'express';
import { count, create, createBatch, deleteMany, deleteRecord, find, findById, restoreRecord, update, updateMany } from '../operations/index';
import type { AccessOperation } from '../operations/access';
import type { FieldView } from '../operations/field-view';
import { operationView } from '../operations/operation-view';
import type { CollectionRuntime, Runtime } from '../operations/runtime';
import { parseCountQuery, parseListQuery, parseRecordQuery } from '../query/index';
import { rejectQuery } from '../query/reject';
import { createCachedReadHeaders } from './cache-headers';
import { endJson, sendReadJson } from '../http/json-answer';
import { toListEnvelope } from '../http/list-envelope';
import { ETAG_HEADER, IF_NONE_MATCH_HEADER, NOT_MODIFIED, bulkIfMatchHeader, ifMatchHeader, preconditionResponses } from './precondition-docs';
import { checkBulkIfMatch, ifMatchOf, sendWritten } from './preconditions';
import { QueryError } from '../errors';
import type { QueryMemo } from './query-memo';
import { parseQueryString, querySearch, readQuery } from '../http/read-query';
import { callerAtOnce, requestUser } from '../http/request-user';
import type { RouteDef } from '../http/route-table';
import { refusalsHeard } from '../http/refused-write-route';
import { recordNouns } from '../schema/type-names';
import { DRAFT_PARAMETER, answerDraftCreate, answerDraftList, asksForDrafts } from './draft-routes';
import { findDrafts } from '../operations/drafts/find-drafts';

/** `{ data: [...] }` is a batch, unless the collection has a field of its own called `data`. */
function isBatch(collection: CollectionRuntime, body: unknown): body is { data: unknown[] } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const keys = Object.keys(body);
  return keys.length === 1 && keys[0] === 'data' && Array.isArray((body as { data: unknown }).data) && !('data' in collection.descriptor.fields);
}

/**
 * Whether a bulk write's `where` or `filter` parameter says anything: `where=` or `filter=` left blank (a
 * client's template that rendered nothing) is no where at all, never "every record", which is `where={}`.
 */
function namesConditions(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(namesConditions);
  if (typeof value === 'string') return value.trim() !== '';
  return value !== undefined;
}

function readBoolean(value: unknown, name: string): boolean {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  return rejectQuery(name, 'must be true or false', 'invalid_boolean');
}

const READ_ERRORS = { 400: { description: 'Invalid query' }, 401: { description: 'Invalid credentials' }, 403: { description: 'Not allowed' } };
const WRITE_ERRORS = { ...READ_ERRORS, 409: { description: 'Unique value taken' }, 413: { description: 'Body too large' }, 415: { description: 'Not JSON' } };

/** The routes of one collection, under `/<slug>`. */
export function collectionRoutes(runtime: Runtime, collection: CollectionRuntime, memo: QueryMemo): RouteDef[] {
  const { registry } = runtime;
  const { query: queryOptions } = runtime.config;
  const descriptor = collection.descriptor;
  const slug = descriptor.slug;
  const base = async (req: Request) => ({ runtime, collection, req, user: await requestUser(runtime, req) });
  // Cache headers only with a cache; read per request: features add their hooks after these routes are built.
  const cacheHeaders = () => (runtime.hooks.readThrough.length > 0 ? createCachedReadHeaders() : undefined);
  const tags = [slug];
  // Summaries name records as English does: `Get a post`, `List staff records`.
  const { one, many } = recordNouns(slug);
  const required = descriptor.requireIfMatch;
  // A collection with a field of its own called `data` has no batch form (see isBatch).
  const batchable = !('data' in descriptor.fields);
  // A cursor names one position: parsed every time, never kept.
  const readListQuery = memo.reader(`${slug}.list`, (search) => parseListQuery(parseQueryString(search), descriptor, registry, queryOptions), (q) => !q.cursor);
  const readRecordQuery = memo.reader(`${slug}.get`, (search) => parseRecordQuery(parseQueryString(search), descriptor, registry, queryOptions));
  // With field read rules, a query is read in the caller's view (a field it may not read is unknown to it),
  // and remembered per view.
  const viewed = runtime.fieldReadRules.length > 0;
  const listQueryIn = (view: FieldView, search: string) =>
    memo.get(`${slug}.list|${view.key}`, search, () => parseListQuery(parseQueryString(search), view.of(collection).descriptor, view.registry, queryOptions), (q) => !q.cursor);
  const recordQueryIn = (view: FieldView, search: string) =>
    memo.get(`${slug}.get|${view.key}`, search, () => parseRecordQuery(parseQueryString(search), view.of(collection).descriptor, view.registry, queryOptions));
  const readCountQuery = memo.reader(`${slug}.count`, (search) => parseCountQuery(parseQueryString(search), descriptor, registry, queryOptions));
  const countQueryIn = (view: FieldView, search: string) =>
    memo.get(`${slug}.count|${view.key}`, search, () => parseCountQuery(parseQueryString(search), view.of(collection).descriptor, view.registry, queryOptions));

  // A bulk write's where, read as a count reads it (in the caller's view with field rules). Required: a
  // write to every record is asked for with `where={}`, never by leaving the where out.
  const bulkWhere = async (req: Request, raw: Record<string, unknown>, user: Awaited<ReturnType<typeof requestUser>>) => {
    if (!namesConditions(raw.where) && !namesConditions(raw.filter)) {
      throw new QueryError('A bulk write needs a where (where={} for every record).', [{ field: 'where', message: 'is required', code: 'required' }]);
    }
    const search = querySearch(req);
    return (viewed ? countQueryIn(await operationView({ runtime, collection, user, req }, 'read'), search) : readCountQuery(search)).where;
  };

  // On a drafts collection a write of the published records needs the publish rule too (a create may make
  // a draft only: its route keeps the create rule alone).
  const published = (op: 'update' | 'delete'): AccessOperation | AccessOperation[] => (collection.drafts ? [op, 'publish'] : op);

  const routes: RouteDef[] = [
    {
      method: 'get',
      path: `/${slug}`,
      operationId: `${slug}.list`,
      rule: { op: 'read', slug },
      summary: `List ${many}`,
      tags,
      collection: slug,
      auth: 'optional',
      query: 'list',
      headers: [IF_NONE_MATCH_HEADER],
      responses: { 200: { description: 'A page of records', shape: { kind: 'list', slug } }, ...NOT_MODIFIED, ...READ_ERRORS },
      async handler(req, res) {
        if (asksForDrafts(req)) {
          // The working copies (draft-routes.ts): every list parameter, read in the caller's view as below.
          const caller = await requestUser(runtime, req);
          const search = querySearch(req);
          const query = viewed ? listQueryIn(await operationView({ runtime, collection, user: caller, req }, 'read'), search) : readListQuery(search);
          await answerDraftList(res, findDrafts({ runtime, collection, req, user: caller, query }), query);
          return;
        }
        const user = viewed ? await requestUser(runtime, req) : undefined;
        const query = user !== undefined ? listQueryIn(await operationView({ runtime, collection, user, req }, 'read'), querySearch(req)) : readListQuery(querySearch(req));
        // Without field rules the query is read first: a malformed one costs no credential check.
        const caller = user !== undefined ? user : await requestUser(runtime, req);
        const headers = cacheHeaders();
        const result = await find({ runtime, collection, req, user: caller, query, cacheable: headers?.observe });
        if (headers?.answerNotModified(req, res)) return;
        sendReadJson(res, toListEnvelope(result, query.envelope));
      },
    },
    {
      // A literal segment: matched before `/:id` (whose ids are ObjectIds, so no record is called "count").
      method: 'get',
      path: `/${slug}/count`,
      operationId: `${slug}.count`,
      rule: { op: 'read', slug },
      summary: `Count ${many}`,
      description: "Takes the list's where, filter, search and includeDeleted.",
      tags,
      collection: slug,
      auth: 'optional',
      query: 'count',
      headers: [IF_NONE_MATCH_HEADER],
      responses: { 200: { description: 'How many records match', shape: { kind: 'schema', schema: TOTAL } }, ...NOT_MODIFIED, ...READ_ERRORS },
      async handler(req, res) {
        // As the list: in the caller's view with field rules, else read before the credential is checked.
        const user = viewed ? await requestUser(runtime, req) : undefined;
        const query = user !== undefined ? countQueryIn(await operationView({ runtime, collection, user, req }, 'read'), querySearch(req)) : readCountQuery(querySearch(req));
        const caller = user !== undefined ? user : await requestUser(runtime, req);
        sendReadJson(res, await count({ runtime, collection, req, user: caller, query, cached: true }));
      },
    },
    {
      method: 'get',
      path: `/${slug}/:id`,
      operationId: `${slug}.get`,
      rule: { op: 'read', slug },
      summary: `Get ${one}`,
      tags,
      collection: slug,
      auth: 'optional',
      query: 'record',
      headers: [IF_NONE_MATCH_HEADER],
      responses: { 200: { description: 'The record', shape: { kind: 'record', slug }, headers: ETAG_HEADER }, ...NOT_MODIFIED, ...READ_ERRORS, 404: { description: 'No such record' } },
      async handler(req, res) {
        const search = querySearch(req);
        const early = viewed ? undefined : readRecordQuery(search);
        // Known at once without a credential to check: the common public get waits for nothing before its read.
        const now = callerAtOnce(runtime, req);
        const user = now !== undefined ? now : await requestUser(runtime, req);
        const query = early ?? recordQueryIn(await operationView({ runtime, collection, user, req }, 'read'), search);
        const headers = cacheHeaders();
        const record = await findById({ runtime, collection, req, user, select: query.select, populate: query.populate, includeDeleted: query.includeDeleted, id: String(req.params.id), cacheable: headers?.observe });
        if (headers?.answerNotModified(req, res)) return;
        // Tagged with the ETag of the record's JSON, which is the body: stringified once for both.
        sendReadJson(res, record);
      },
    },
    {
      method: 'post',
      path: `/${slug}`,
      operationId: `${slug}.create`,
      rule: { op: 'create', slug },
      summary: batchable ? `Create ${one}, or a batch of them` : `Create ${one}`,
      ...(batchable && { description: 'A batch is `{ data: [...] }`: every record is created, or none.' }),
      tags,
      collection: slug,
      auth: 'optional',
      ...(collection.drafts && { query: [DRAFT_PARAMETER] }),
      body: { type: 'json', shape: batchable ? { kind: 'one-of', shapes: [{ kind: 'record-input', slug, mode: 'create' }, { kind: 'batch-input', slug }] } : { kind: 'record-input', slug, mode: 'create' }, required: true },
      config: { idempotent: true },
      responses: {
        201: { description: 'The created record (or { data } for a batch)', shape: batchable ? { kind: 'one-of', shapes: [{ kind: 'record', slug }, { kind: 'batch', slug }] } : { kind: 'record', slug } },
        ...WRITE_ERRORS,
      },
      handler: refusalsHeard({ runtime, collection, action: 'create' }, async (req, res) => {
        // `?draft=true`: a record that exists only as a working copy (draft-routes.ts).
        if (asksForDrafts(req)) {
          if (isBatch(collection, req.body)) throw new QueryError('draft=true creates one record, not a batch.', [{ field: 'draft', message: 'takes one record', code: 'draft_batch' }]);
          await answerDraftCreate(runtime, collection, req, res);
          return;
        }
        const args = await base(req);
        if (isBatch(collection, req.body)) {
          // Without transactions an item another writer raced is reported in `errors`; the others are created.
          const { data, errors } = await createBatch({ ...args, items: req.body.data });
          endJson(res.status(201), errors.length ? { data, errors } : { data });
          return;
        }
        const record = await create({ ...args, data: req.body });
        sendWritten(res.status(201).location(`${req.baseUrl}/${slug}/${record.id}`), record);
      }),
    },
    {
      method: 'patch',
      path: `/${slug}/:id`,
      operationId: `${slug}.update`,
      rule: { op: published('update'), slug },
      summary: `Update ${one}`,
      tags,
      collection: slug,
      auth: 'optional',
      headers: [ifMatchHeader(required)],
      body: { type: 'json', shape: { kind: 'record-input', slug, mode: 'update' }, required: true },
      responses: { 200: { description: 'The updated record', shape: { kind: 'record', slug }, headers: ETAG_HEADER }, ...WRITE_ERRORS, 404: { description: 'No such record' }, ...preconditionResponses(required) },
      handler: refusalsHeard({ runtime, collection, action: 'update' }, async (req, res) => {
        const ifMatch = ifMatchOf(req, descriptor);
        sendWritten(res, await update({ ...(await base(req)), id: String(req.params.id), data: req.body, ifMatch }));
      }),
    },
    {
      method: 'delete',
      path: `/${slug}/:id`,
      operationId: `${slug}.delete`,
      rule: { op: published('delete'), slug },
      summary: descriptor.softDelete ? `Delete ${one} (soft: permanent=true removes it)` : `Delete ${one}`,
      tags,
      collection: slug,
      auth: 'optional',
      query: descriptor.softDelete ? [PERMANENT] : undefined,
      headers: [ifMatchHeader(required)],
      responses: { 200: { description: '{ deleted: true }', shape: { kind: 'schema', schema: DELETED } }, ...READ_ERRORS, 404: { description: 'No such record' }, ...preconditionResponses(required) },
      handler: refusalsHeard({ runtime, collection, action: 'delete' }, async (req, res) => {
        const permanent = readBoolean(readQuery(req).permanent, 'permanent');
        const ifMatch = ifMatchOf(req, descriptor);
        endJson(res, await deleteRecord({ ...(await base(req)), id: String(req.params.id), permanent, ifMatch }));
      }),
    },
    {
      method: 'patch',
      path: `/${slug}`,
      operationId: `${slug}.updateMany`,
      rule: { op: published('update'), slug },
      summary: `Update every ${one.replace(/^an? /, '')} the where matches`,
      description: BULK_WHERE,
      tags,
      collection: slug,
      auth: 'optional',
      query: BULK_QUERY,
      headers: [bulkIfMatchHeader(required)],
      body: { type: 'json', shape: { kind: 'record-input', slug, mode: 'update' }, required: true },
      responses: { 200: { description: 'The records as written, and those that failed', shape: { kind: 'bulk', slug, op: 'update' } }, ...WRITE_ERRORS, ...preconditionResponses(required, true) },
      handler: refusalsHeard({ runtime, collection, action: 'update' }, async (req, res) => {
        checkBulkIfMatch(req, descriptor);
        const args = await base(req);
        const raw = readQuery(req);
        const where = await bulkWhere(req, raw, args.user);
        endJson(res, await updateMany({ ...args, where, data: req.body, dryRun: readBoolean(raw.dryRun, 'dryRun') }));
      }),
    },
    {
      method: 'delete',
      path: `/${slug}`,
      operationId: `${slug}.deleteMany`,
      rule: { op: published('delete'), slug },
      summary: `Delete every ${one.replace(/^an? /, '')} the where matches${descriptor.softDelete ? ' (soft: permanent=true removes them)' : ''}`,
      description: BULK_WHERE,
      tags,
      collection: slug,
      auth: 'optional',
      query: descriptor.softDelete ? [...BULK_QUERY, PERMANENT] : BULK_QUERY,
      headers: [bulkIfMatchHeader(required)],
      responses: { 200: { description: 'The ids deleted, and the records that failed', shape: { kind: 'bulk', slug, op: 'delete' } }, ...READ_ERRORS, ...preconditionResponses(required, true) },
      handler: refusalsHeard({ runtime, collection, action: 'delete' }, async (req, res) => {
        checkBulkIfMatch(req, descriptor);
        const args = await base(req);
        const raw = readQuery(req);
        const where = await bulkWhere(req, raw, args.user);
        endJson(res, await deleteMany({ ...args, where, dryRun: readBoolean(raw.dryRun, 'dryRun'), permanent: readBoolean(raw.permanent, 'permanent') }));
      }),
    },
  ];
  if (descriptor.softDelete) {
    routes.push({
      method: 'post',
      path: `/${slug}/:id/restore`,
      operationId: `${slug}.restore`,
      rule: { op: published('update'), slug },
      summary: `Restore a deleted ${one.replace(/^an? /, '')}`,
      tags,
      collection: slug,
      auth: 'optional',
      headers: [ifMatchHeader(false)],
      responses: { 200: { description: 'The restored record', shape: { kind: 'record', slug }, headers: ETAG_HEADER }, ...READ_ERRORS, 404: { description: 'No such deleted record' }, ...preconditionResponses(false) },
      handler: refusalsHeard({ runtime, collection, action: 'restore' }, async (req, res) => {
        // The tag of the deleted record, as GET ?includeDeleted=true gave it; never required (a restore loses no change).
        const ifMatch = ifMatchOf(req, { requireIfMatch: false });
        sendWritten(res, await restoreRecord({ ...(await base(req)), id: String(req.params.id), ifMatch }));
      }),
    });
  }
  return routes;
}

const DELETED = { type: 'object', properties: { deleted: { type: 'boolean', const: true } }, required: ['deleted'] };
const TOTAL = { type: 'object', properties: { total: { type: 'integer', minimum: 0 } }, required: ['total'], additionalProperties: false };

const PERMANENT = { name: 'permanent', description: 'Remove the record instead of marking it deleted.', schema: { type: 'boolean' } };

/** The query of a bulk write: the list's conditions (where is required; where={} is every record) and dryRun. */
const BULK_QUERY = ['conditions' as const, { name: 'dryRun', description: 'Answer how many records match and write nothing.', schema: { type: 'boolean' } }];
/** What a bulk write says of its conditions beyond the list's. */
const BULK_WHERE = 'The records to write are those a list with the same where, filter and search would give. A where (or filter) is required: where={} means every record.';
