// The REST routes of one collection as route-table entries: parse the request, call the shared
// operation, shape the answer. List, get, create (one or a batch), update, delete, and restore.
import type { Request } from 'express';
import { create, createMany, deleteRecord, find, findById, restoreRecord, update } from '../operations';
import type { FieldView } from '../operations/field-view';
import { operationView } from '../operations/operation-view';
import type { CollectionRuntime, Runtime } from '../operations/runtime';
import { parseListQuery, parseRecordQuery } from '../query';
import { rejectQuery } from '../query/reject';
import { createCachedReadHeaders } from './cache-headers';
import { toListEnvelope } from './list-envelope';
import type { QueryMemo } from './query-memo';
import { parseQueryString, querySearch, readQuery } from './read-query';
import { callerAtOnce, requestUser } from './request-user';
import type { RouteDef } from './route-table';

/** `{ data: [...] }` is a batch, unless the collection has a field of its own called `data`. */
function isBatch(collection: CollectionRuntime, body: unknown): body is { data: unknown[] } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const keys = Object.keys(body);
  return keys.length === 1 && keys[0] === 'data' && Array.isArray((body as { data: unknown }).data) && !('data' in collection.descriptor.fields);
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

  const routes: RouteDef[] = [
    {
      method: 'get',
      path: `/${slug}`,
      operationId: `${slug}.list`,
      summary: `List ${slug}`,
      tags,
      auth: 'optional',
      query: 'list',
      responses: { 200: { description: 'A page of records', shape: { kind: 'list', slug } }, ...READ_ERRORS },
      async handler(req, res) {
        const user = viewed ? await requestUser(runtime, req) : undefined;
        const query = viewed ? listQueryIn(await operationView({ runtime, collection, user: user!, req }, 'read'), querySearch(req)) : readListQuery(querySearch(req));
        // Without field rules the query is read first: a malformed one costs no credential check.
        const caller = user !== undefined ? user : await requestUser(runtime, req);
        const headers = cacheHeaders();
        const result = await find({ runtime, collection, req, user: caller, query, cacheable: headers?.observe });
        if (headers?.answerNotModified(req, res, caller === null)) return;
        res.json(toListEnvelope(result, query.envelope));
      },
    },
    {
      method: 'get',
      path: `/${slug}/:id`,
      operationId: `${slug}.get`,
      summary: `Get one of ${slug}`,
      tags,
      auth: 'optional',
      query: 'record',
      responses: { 200: { description: 'The record', shape: { kind: 'record', slug } }, ...READ_ERRORS, 404: { description: 'No such record' } },
      async handler(req, res) {
        const search = querySearch(req);
        const early = viewed ? undefined : readRecordQuery(search);
        // Known at once without a credential to check: the common public get waits for nothing before its read.
        const now = callerAtOnce(runtime, req);
        const user = now !== undefined ? now : await requestUser(runtime, req);
        const query = early ?? recordQueryIn(await operationView({ runtime, collection, user, req }, 'read'), search);
        const headers = cacheHeaders();
        const record = await findById({ runtime, collection, req, user, select: query.select, populate: query.populate, includeDeleted: query.includeDeleted, id: String(req.params.id), cacheable: headers?.observe });
        if (headers?.answerNotModified(req, res, user === null)) return;
        res.json(record);
      },
    },
    {
      method: 'post',
      path: `/${slug}`,
      operationId: `${slug}.create`,
      summary: `Create one of ${slug}, or a batch with { data: [...] }`,
      tags,
      auth: 'optional',
      body: { type: 'json', shape: batchable ? { kind: 'one-of', shapes: [{ kind: 'record-input', slug, mode: 'create' }, { kind: 'batch-input', slug }] } : { kind: 'record-input', slug, mode: 'create' }, required: true },
      config: { idempotent: true },
      responses: {
        201: { description: 'The created record (or { data } for a batch)', shape: batchable ? { kind: 'one-of', shapes: [{ kind: 'record', slug }, { kind: 'batch', slug }] } : { kind: 'record', slug } },
        ...WRITE_ERRORS,
      },
      async handler(req, res) {
        const args = await base(req);
        if (isBatch(collection, req.body)) {
          res.status(201).json({ data: await createMany({ ...args, items: req.body.data }) });
          return;
        }
        const record = await create({ ...args, data: req.body });
        res.status(201).location(`${req.baseUrl}/${slug}/${record.id}`).json(record);
      },
    },
    {
      method: 'patch',
      path: `/${slug}/:id`,
      operationId: `${slug}.update`,
      summary: `Update one of ${slug}`,
      tags,
      auth: 'optional',
      body: { type: 'json', shape: { kind: 'record-input', slug, mode: 'update' }, required: true },
      responses: { 200: { description: 'The updated record', shape: { kind: 'record', slug } }, ...WRITE_ERRORS, 404: { description: 'No such record' } },
      async handler(req, res) {
        res.json(await update({ ...(await base(req)), id: String(req.params.id), data: req.body }));
      },
    },
    {
      method: 'delete',
      path: `/${slug}/:id`,
      operationId: `${slug}.delete`,
      summary: descriptor.softDelete ? `Delete one of ${slug} (soft; ?permanent=true removes it)` : `Delete one of ${slug}`,
      tags,
      auth: 'optional',
      query: descriptor.softDelete ? [{ name: 'permanent', description: 'Remove the record instead of marking it deleted.', schema: { type: 'boolean' } }] : undefined,
      responses: { 200: { description: '{ deleted: true }', shape: { kind: 'schema', schema: DELETED } }, ...READ_ERRORS, 404: { description: 'No such record' } },
      async handler(req, res) {
        const permanent = readBoolean(readQuery(req).permanent, 'permanent');
        res.json(await deleteRecord({ ...(await base(req)), id: String(req.params.id), permanent }));
      },
    },
  ];
  if (descriptor.softDelete) {
    routes.push({
      method: 'post',
      path: `/${slug}/:id/restore`,
      operationId: `${slug}.restore`,
      summary: `Restore a soft-deleted one of ${slug}`,
      tags,
      auth: 'optional',
      responses: { 200: { description: 'The restored record', shape: { kind: 'record', slug } }, ...READ_ERRORS, 404: { description: 'No such deleted record' } },
      async handler(req, res) {
        res.json(await restoreRecord({ ...(await base(req)), id: String(req.params.id) }));
      },
    });
  }
  return routes;
}

const DELETED = { type: 'object', properties: { deleted: { type: 'boolean', const: true } }, required: ['deleted'] };
