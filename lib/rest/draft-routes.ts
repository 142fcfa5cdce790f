// The REST routes of working copies (drafts collections and globals: versions: { drafts: true }):
// GET, PATCH and DELETE /<slug>/:id/draft and /globals/<slug>/draft, and the `?draft=true` forms of the
// list and create routes (collection-routes.ts calls them). Every answer is the caller's own: `private,
// no-store`; a record's ETag is its working copy's, what If-Match of a draft save or a publish is compared
// with. A preview link's read (`?preview=<token>`) answers anyone holding the token, `no-store` and
// `noindex`. On a collection without drafts the same paths answer a 404 saying drafts are off (routes
// left out of the document: a client has nothing to call there).
import type { Request, Response } from 'express';
import { QueryError } from '../errors';
import { endJson, sendReadJson } from '../http/json-answer';
import { toListEnvelope } from '../http/list-envelope';
import { parseQueryString, querySearch } from '../http/read-query';
import { requestUser } from '../http/request-user';
import type { RouteDef } from '../http/route-table';
import { createDraft } from '../operations/drafts/create-draft';
import { discardDraft } from '../operations/drafts/discard-draft';
import { findDraft } from '../operations/drafts/find-draft';
import type { DraftPage } from '../operations/drafts/find-drafts';
import { discardGlobalDraft, findGlobalDraft, saveGlobalDraft } from '../operations/drafts/global-drafts';
import { findDraftByPreview } from '../operations/drafts/preview';
import { refusalsHeard } from '../http/refused-write-route';
import { saveDraft } from '../operations/drafts/save-draft';
import { type DraftAnswer, draftsOff, withStatus } from '../operations/drafts/working-copy';
import type { FieldView } from '../operations/field-view';
import { operationView } from '../operations/operation-view';
import { representationTag } from '../operations/precondition';
import type { CollectionRuntime, Runtime } from '../operations/runtime';
import { parseRecordQuery } from '../query/index';
import type { ListQuery } from '../query/types';
import { ETAG_HEADER, IF_NONE_MATCH_HEADER, NOT_MODIFIED, ifMatchHeader, preconditionResponses } from './precondition-docs';
import { ifMatchOf } from './preconditions';
import { recordNouns } from '../schema/type-names';

/** Working copies are their editors' alone: no cache, shared or private, keeps them. */
const DRAFT_CACHE_CONTROL = 'private, no-store';

const DELETED = { type: 'object', properties: { deleted: { type: 'boolean', const: true } }, required: ['deleted'] };

/** The `draft` query parameter of the list and create routes, in the document. */
export const DRAFT_PARAMETER = { name: 'draft', description: 'true: the working copies (a list), or create the record as a draft only (never published).', schema: { type: 'boolean' } };

const ERRORS = { 400: { description: 'Invalid query or body' }, 401: { description: 'Invalid credentials' }, 403: { description: 'Not allowed' }, 404: { description: 'No such record, or drafts are off' } };

/** True when the request asks for working copies (`?draft=true`); a `draft` that is not true or false is a 400. Cheap without one. */
export function asksForDrafts(req: Request): boolean {
  const search = querySearch(req);
  if (!search.includes('draft')) return false;
  const value = parseQueryString(search).draft;
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw new QueryError('Invalid query.', [{ field: 'draft', message: 'must be true or false', code: 'invalid_boolean' }]);
}

/** Sends a working copy read (GET): its ETag the record's (what If-Match is compared with), `_status` beside it. */
function sendDraftRead(res: Response, answer: DraftAnswer): void {
  res.setHeader('Cache-Control', DRAFT_CACHE_CONTROL);
  res.setHeader('ETag', representationTag(answer.record));
  sendReadJson(res, withStatus(answer));
}

/** Sends a working copy a write answers with: tagged and kept out of caches as its read is. */
export function sendDraftWritten(res: Response, answer: DraftAnswer): void {
  res.setHeader('Cache-Control', DRAFT_CACHE_CONTROL);
  res.setHeader('ETag', representationTag(answer.record));
  endJson(res, withStatus(answer));
}

/** Answers `GET /<slug>?draft=true`: a page of working copies, each with `_status`. */
export async function answerDraftList(res: Response, page: Promise<DraftPage>, query: ListQuery): Promise<void> {
  const result = await page;
  res.setHeader('Cache-Control', DRAFT_CACHE_CONTROL);
  sendReadJson(res, toListEnvelope(result, query.envelope));
}

/** Answers `POST /<slug>?draft=true`: 201, the working copy, and where it is read. */
export async function answerDraftCreate(runtime: Runtime, collection: CollectionRuntime, req: Request, res: Response): Promise<void> {
  const answer = await createDraft({ runtime, collection, req, user: await requestUser(runtime, req), data: req.body });
  sendDraftWritten(res.status(201).location(`${req.baseUrl}/${collection.descriptor.slug}/${answer.record.id}/draft`), answer);
}

/** The draft routes of one collection (or, with drafts off, the 404s that say so). */
export function draftRoutes(runtime: Runtime, collection: CollectionRuntime): RouteDef[] {
  const { descriptor } = collection;
  const { slug } = descriptor;
  const path = `/${slug}/:id/draft`;
  if (!collection.drafts) return draftsOffRoutes(path, `${slug}.draft`, descriptor);
  const { one } = recordNouns(slug);
  const tags = [slug];
  const required = descriptor.requireIfMatch;
  const recordQueryIn = (view: FieldView, search: string) => parseRecordQuery(parseQueryString(search), view.of(collection).descriptor, view.registry, runtime.config.query);
  const base = async (req: Request) => ({ runtime, collection, req, user: await requestUser(runtime, req), id: String(req.params.id) });
  return [
    {
      method: 'get',
      path,
      operationId: `${slug}.draft.get`,
      summary: `Get the working copy of ${one}`,
      description: 'Needs readDrafts. `_status`: draft (never published), published (the same as the published record) or changed. With `preview=<token>`, a preview link: anyone holding the token reads the working copy as an anonymous reader would.',
      tags,
      collection: slug,
      auth: 'optional',
      query: [PREVIEW_PARAMETER, ...RECORD_QUERY],
      headers: [IF_NONE_MATCH_HEADER],
      responses: { 200: { description: 'The working copy', shape: { kind: 'draft', slug }, headers: ETAG_HEADER }, ...NOT_MODIFIED, ...ERRORS },
      async handler(req, res) {
        const search = querySearch(req);
        if (await answeredPreview(runtime, collection, String(req.params.id), req, res)) return;
        const args = await base(req);
        const query = recordQueryIn(await operationView(args, 'read'), search);
        sendDraftRead(res, await findDraft({ ...args, select: query.select, populate: query.populate }));
      },
    },
    {
      method: 'patch',
      path,
      operationId: `${slug}.draft.save`,
      rule: { op: ['update', 'readDrafts'], slug },
      summary: `Save the working copy of ${one}`,
      description: 'Field access, hooks (told `draft: true`), types and unknown fields are checked; `required` and `unique` wait for publish. If-Match takes the ETag of GET /:id/draft.',
      tags,
      collection: slug,
      auth: 'optional',
      headers: [ifMatchHeader(required)],
      body: { type: 'json', shape: { kind: 'record-input', slug, mode: 'update' }, required: true },
      responses: { 200: { description: 'The working copy as saved', shape: { kind: 'draft', slug }, headers: ETAG_HEADER }, ...ERRORS, 413: { description: 'Body too large' }, 415: { description: 'Not JSON' }, ...preconditionResponses(required) },
      handler: refusalsHeard({ runtime, collection, action: 'draft' }, async (req, res) => {
        const ifMatch = ifMatchOf(req, descriptor);
        sendDraftWritten(res, await saveDraft({ ...(await base(req)), data: req.body, ifMatch }));
      }),
    },
    {
      method: 'delete',
      path,
      operationId: `${slug}.draft.discard`,
      rule: { op: ['update', 'readDrafts'], slug },
      summary: `Drop the unpublished changes of ${one}`,
      description: 'The working copy becomes the published record again (answered, `_status: published`); a never-published record is deleted (`{ deleted: true }`).',
      tags,
      collection: slug,
      auth: 'optional',
      headers: [ifMatchHeader(false)],
      responses: {
        200: { description: 'The working copy as reset, or { deleted: true }', shape: { kind: 'one-of', shapes: [{ kind: 'draft', slug }, { kind: 'schema', schema: DELETED }] } },
        ...ERRORS,
        ...preconditionResponses(false),
      },
      handler: refusalsHeard({ runtime, collection, action: 'draft' }, async (req, res) => {
        // Never required: dropping changes loses none that were published.
        const ifMatch = ifMatchOf(req, { requireIfMatch: false });
        const answer = await discardDraft({ ...(await base(req)), ifMatch });
        if ('deleted' in answer) endJson(res, answer);
        else sendDraftWritten(res, answer);
      }),
    },
  ];
}

/** The draft routes of one global (or, with drafts off, the 404s that say so). */
export function globalDraftRoutes(runtime: Runtime, global: CollectionRuntime): RouteDef[] {
  const { descriptor } = global;
  const { slug } = descriptor;
  const path = `/globals/${slug}/draft`;
  if (!global.drafts) return draftsOffRoutes(path, `globals.${slug}.draft`, descriptor);
  const tags = ['globals'];
  const required = descriptor.requireIfMatch;
  const base = async (req: Request) => ({ runtime, global, req, user: await requestUser(runtime, req) });
  return [
    {
      method: 'get',
      path,
      operationId: `globals.${slug}.draft.get`,
      summary: `Get the working copy of the ${slug} global`,
      description: 'Needs readDrafts. `_status`: draft (never published), published or changed. With `preview=<token>`, a preview link: anyone holding the token reads the working copy as an anonymous reader would.',
      tags,
      auth: 'optional',
      query: [PREVIEW_PARAMETER],
      headers: [IF_NONE_MATCH_HEADER],
      responses: { 200: { description: 'The working copy', shape: { kind: 'draft', slug, global: true }, headers: ETAG_HEADER }, ...NOT_MODIFIED, ...ERRORS },
      async handler(req, res) {
        if (await answeredPreview(runtime, global, slug, req, res)) return;
        sendDraftRead(res, await findGlobalDraft(await base(req)));
      },
    },
    {
      method: 'patch',
      path,
      operationId: `globals.${slug}.draft.save`,
      rule: { op: ['update', 'readDrafts'], slug, global: true },
      summary: `Save the working copy of the ${slug} global`,
      tags,
      auth: 'optional',
      headers: [ifMatchHeader(required)],
      body: { type: 'json', shape: { kind: 'global-input', slug }, required: true },
      responses: { 200: { description: 'The working copy as saved', shape: { kind: 'draft', slug, global: true }, headers: ETAG_HEADER }, ...ERRORS, 413: { description: 'Body too large' }, 415: { description: 'Not JSON' }, ...preconditionResponses(required) },
      handler: refusalsHeard({ runtime, collection: global, action: 'draft' }, async (req, res) => {
        const ifMatch = ifMatchOf(req, descriptor);
        sendDraftWritten(res, await saveGlobalDraft({ ...(await base(req)), data: req.body, ifMatch }));
      }),
    },
    {
      method: 'delete',
      path,
      operationId: `globals.${slug}.draft.discard`,
      rule: { op: ['update', 'readDrafts'], slug, global: true },
      summary: `Drop the unpublished changes of the ${slug} global`,
      tags,
      auth: 'optional',
      headers: [ifMatchHeader(false)],
      responses: { 200: { description: 'The working copy as reset', shape: { kind: 'draft', slug, global: true } }, ...ERRORS, ...preconditionResponses(false) },
      handler: refusalsHeard({ runtime, collection: global, action: 'draft' }, async (req, res) => {
        const ifMatch = ifMatchOf(req, { requireIfMatch: false });
        sendDraftWritten(res, await discardGlobalDraft({ ...(await base(req)), ifMatch }));
      }),
    },
  ];
}

/** The methods of a draft path (GET, PATCH, DELETE by default) where drafts are off: a 404 saying so, left out of the document. */
export function draftsOffRoutes(path: string, operationId: string, descriptor: { slug: string; isGlobal: boolean }, methods: readonly RouteDef['method'][] = ['get', 'patch', 'delete']): RouteDef[] {
  const refuse = (): Promise<void> => Promise.reject(draftsOff(descriptor));
  return methods.map((method) => ({
    method,
    path,
    operationId: `${operationId}.${method}`,
    summary: 'Drafts are off',
    tags: [],
    auth: 'none',
    undocumented: true,
    responses: { 404: { description: 'Drafts are off' } },
    handler: refuse,
  }));
}

const PREVIEW_PARAMETER = { name: 'preview', description: 'A preview link token (POST .../preview): reads the working copy without credentials.', schema: { type: 'string' } };

/**
 * A preview link's read (`?preview=<token>`), answered for whoever holds the token, never a crawler nor a
 * cache; false when the request carries no token (the caller's own read then).
 */
async function answeredPreview(runtime: Runtime, owner: CollectionRuntime, id: string, req: Request, res: Response): Promise<boolean> {
  const { preview } = parseQueryString(querySearch(req));
  if (preview === undefined) return false;
  if (typeof preview !== 'string') throw new QueryError('Invalid query.', [{ field: 'preview', message: 'must be one token', code: 'invalid_preview' }]);
  const record = await findDraftByPreview({ runtime, collection: owner, req, user: null, id, token: preview });
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Robots-Tag', 'noindex');
  sendReadJson(res, record);
  return true;
}

/** The single-record query parameters GET /:id/draft takes besides `preview`. */
const RECORD_QUERY = [
  { name: 'depth', description: 'Populate relationships this many levels deep.', schema: { type: 'integer', minimum: 0 } },
  { name: 'include', description: 'Relationships to populate (comma-separated paths).', schema: { type: 'string' } },
  { name: 'fields', description: 'Only these fields (comma-separated).', schema: { type: 'string' } },
];
