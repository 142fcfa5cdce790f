// The local API: the same operations as REST, called from server code. Who acts and whether access rules
// apply are separate options, as in Payload's local API: `overrideAccess` defaults to true without a user.
import type { Request } from 'express';
import type { HookContext } from '../config/hooks';
import type { AuthUser } from '../config/types';
import { type BulkResult, count, create, createMany, deleteMany, deleteRecord, find, findById, findGlobal, restoreRecord, update, updateMany } from '../operations';
import { type IfMatch, parseIfMatch } from '../operations/precondition';
import type { UploadedFile } from '../operations/file-storage';
import type { FindResult } from '../operations/find-result';
import { operationView } from '../operations/operation-view';
import { type RequestState, contextState, requestState } from '../operations/request-state';
import { type HookCaller, type Runtime, getCollection } from '../operations/runtime';
import { updateGlobal } from '../operations/globals';
import { NotFoundError } from '../errors';
import { parseCountQuery, parseListQuery, parseRecordQuery } from '../query';
import type { ApiRecord } from '../schema/to-record';
import { type DraftsLocalApi, bindDraftsLocalApi, createDraftsLocalApi } from './draft-api';
import { type PreviewLocalApi, bindPreviewLocalApi, createPreviewLocalApi } from './preview-api';

/** Who is acting, and whether access rules apply to it. */
export interface LocalOptions {
  /**
   * The caller the operation runs as: access rules, read-only fields and the features' hooks (an upload's
   * `uploadedBy`) see it. `null` is an anonymous caller. Default: no user.
   *
   * A `user` key holding `undefined` (`{ user: req.user }` of an anonymous request) is refused with a
   * TypeError unless `overrideAccess` is given too: it cannot tell "anonymous" from "server code".
   */
  user?: AuthUser | null;
  /**
   * Skip every access rule (the collection's, the uploads', the read-only fields), and let the call
   * write hidden fields. Default: `true` when no `user` key is given; `false` when a user (or `null`) is.
   * `{ user, overrideAccess: true }` runs as that user with access skipped; `{ overrideAccess: false }`
   * without a user runs as an anonymous caller. Anything but a boolean is a TypeError.
   */
  overrideAccess?: boolean;
  /**
   * The object every hook of the call shares (`args.context`). Default: a new one per call, or the one of
   * `req` when it is given. Hooks calling `args.api` pass theirs on by themselves.
   */
  context?: HookContext;
  /** The HTTP request the call serves, for access rules and hooks that read it (`args.req`). Default: none. */
  req?: Request;
}

/** List options: the same parameters the REST list takes, as values instead of strings. */
export interface LocalFindOptions extends LocalOptions {
  where?: Record<string, unknown>;
  sort?: string;
  limit?: number;
  perPage?: number;
  page?: number;
  cursor?: string;
  depth?: number;
  include?: string;
  fields?: string;
  search?: string;
  includeDeleted?: boolean;
  count?: boolean;
}

/** Count options: the list's conditions, as values; other list parameters are ignored, as over REST. */
export interface LocalCountOptions extends LocalOptions {
  where?: Record<string, unknown>;
  /** Form C conditions, `field:value` or `field:>value` (also `>=`, `<`, `<=`, `!=`); several are ANDed. */
  filter?: string | string[];
  search?: string;
  includeDeleted?: boolean;
}

/** A precondition on a write of one record: the ETag a client read it with (forwarded from its If-Match), a list of them, or `*`. */
export interface LocalPreconditionOptions extends LocalOptions {
  /**
   * Write only if the record, as this call's caller reads it, still has this ETag; else the call rejects
   * with a 412 `precondition_failed` and nothing is written. Takes an If-Match header value as it came.
   */
  ifMatch?: string;
}

/** Options of updateMany and deleteMany. */
export interface LocalBulkOptions extends LocalOptions {
  /** Count the matching records and write nothing. */
  dryRun?: boolean;
}

/** A stored file as the API shows it (docs/uploads.md): what `upload()` resolves with. */
export type { UploadedFile };

/** What `upload()` is told about the bytes it stores. */
export interface LocalUploadOptions extends LocalOptions {
  /** The original file name; kept (path parts and control characters removed) as `originalName`. */
  filename: string;
  /** The declared type; checked against the bytes as for HTTP uploads. Default `application/octet-stream`. */
  mimeType?: string;
  /** Alternative text for images. */
  alt?: string;
}

/** The operations of `api.local`; the working copies' members are DraftsLocalApi's (draft-api.ts), the preview links' PreviewLocalApi's (preview-api.ts). */
export interface LocalApi extends DraftsLocalApi, PreviewLocalApi<LocalOptions> {
  find(collection: string, options?: LocalFindOptions): Promise<FindResult>;
  /** How many records match, as `GET /<slug>/count` answers; always counted afresh (never a cached total). */
  count(collection: string, options?: LocalCountOptions): Promise<{ total: number }>;
  findById(
    collection: string,
    id: string,
    options?: LocalOptions & { depth?: number; include?: string; fields?: string; includeDeleted?: boolean },
  ): Promise<ApiRecord>;
  create(collection: string, data: Record<string, unknown>, options?: LocalOptions): Promise<ApiRecord>;
  createMany(collection: string, data: Record<string, unknown>[], options?: LocalOptions): Promise<ApiRecord[]>;
  update(collection: string, id: string, data: Record<string, unknown>, options?: LocalPreconditionOptions): Promise<ApiRecord>;
  delete(collection: string, id: string, options?: LocalPreconditionOptions & { permanent?: boolean }): Promise<{ deleted: true }>;
  restore(collection: string, id: string, options?: LocalPreconditionOptions): Promise<ApiRecord>;
  /** Sets `data` on every record `where` matches, as `PATCH /<slug>?where=` does (`{}`: every record). */
  updateMany(collection: string, where: Record<string, unknown>, data: Record<string, unknown>, options?: LocalBulkOptions): Promise<BulkResult>;
  /** Deletes every record `where` matches, as `DELETE /<slug>?where=` does (`{}`: every record). */
  deleteMany(collection: string, where: Record<string, unknown>, options?: LocalBulkOptions & { permanent?: boolean }): Promise<BulkResult>;
  findGlobal(slug: string, options?: LocalOptions): Promise<Record<string, unknown>>;
  updateGlobal(slug: string, data: Record<string, unknown>, options?: LocalPreconditionOptions): Promise<Record<string, unknown>>;
  /** Stores a file (a stream or its bytes) as `POST /upload` does; needs the `uploads` option. */
  upload(source: NodeJS.ReadableStream | Uint8Array, options: LocalUploadOptions): Promise<UploadedFile>;
  /** Deletes a stored file by its stored name (`filename`, the last segment of its `url`) as `DELETE /uploads/:filename` does; needs the `uploads` option. */
  deleteUpload(filename: string, options?: LocalOptions): Promise<{ deleted: true }>;
}

/**
 * Who is acting, as every operation takes it, from LocalOptions (their rules are documented there);
 * shared with the features' local members (api.local.upload). Throws a TypeError for a call it cannot read.
 */
export function actor(options: LocalOptions | undefined): { user: AuthUser | null; overrideAccess: boolean; trusted: boolean; state: RequestState; req?: Request } {
  const override: unknown = options?.overrideAccess;
  if (override !== undefined && typeof override !== 'boolean') {
    const got = override === null ? 'null' : typeof override === 'string' ? JSON.stringify(override) : `a ${typeof override}`;
    throw new TypeError(`content-router: api.local: overrideAccess must be true or false (got ${got})`);
  }
  const userGiven = options != null && Object.hasOwn(options, 'user');
  if (userGiven && options.user === undefined && override === undefined) {
    // Most often req.user of an anonymous request: overriding would hand it everything, silently.
    throw new TypeError(
      'content-router: api.local: user is undefined; pass overrideAccess: false to run as an anonymous caller ' +
        '(e.g. { user: req.user, overrideAccess: false }), overrideAccess: true to skip access, or omit user',
    );
  }
  const overrideAccess = override ?? !userGiven;
  // Access overridden also lets server code write hidden fields, as it may read them.
  return { user: options?.user ?? null, overrideAccess, trusted: overrideAccess, state: localState(options), req: options?.req };
}

/**
 * The request state a call runs in: its request's (so its hooks share the request's context, and its writes
 * count as the request's), or, without a request or with a context of its own, the state of its context (a
 * new one when it passes none): its hooks share it, and its field rules are asked once, nested calls included.
 */
function localState(options: LocalOptions | undefined): RequestState {
  const context = options?.context;
  if (options?.req) {
    const own = requestState(options.req);
    if (context === undefined || context === own.context) return own;
  }
  return contextState(context ?? {});
}

/** The query parameters among find/findById options: everything but who is acting. */
function queryOf<T extends LocalOptions>(options: T): Omit<T, keyof LocalOptions> {
  const { user: _user, overrideAccess: _override, context: _context, req: _req, ...query } = options;
  return query;
}

/**
 * The local API as a hook's `api`: every call runs as the hook's caller and shares its context and request,
 * unless the call says otherwise (`{ overrideAccess: true }`, another `user`).
 */
export function bindLocalApi(local: LocalApi, caller: HookCaller): LocalApi {
  const own = { context: caller.state.context, req: caller.req };
  const as = <T extends LocalOptions>(options?: T): T => {
    const who = options && (Object.hasOwn(options, 'user') || Object.hasOwn(options, 'overrideAccess')) ? {} : { user: caller.user, overrideAccess: caller.overrideAccess };
    return { ...own, ...who, ...options } as T;
  };
  return {
    find: (slug, options) => local.find(slug, as(options)),
    count: (slug, options) => local.count(slug, as(options)),
    findById: (slug, id, options) => local.findById(slug, id, as(options)),
    create: (slug, data, options) => local.create(slug, data, as(options)),
    createMany: (slug, data, options) => local.createMany(slug, data, as(options)),
    update: (slug, id, data, options) => local.update(slug, id, data, as(options)),
    delete: (slug, id, options) => local.delete(slug, id, as(options)),
    restore: (slug, id, options) => local.restore(slug, id, as(options)),
    updateMany: (slug, where, data, options) => local.updateMany(slug, where, data, as(options)),
    deleteMany: (slug, where, options) => local.deleteMany(slug, where, as(options)),
    findGlobal: (slug, options) => local.findGlobal(slug, as(options)),
    updateGlobal: (slug, data, options) => local.updateGlobal(slug, data, as(options)),
    upload: (source, options) => local.upload(source, as(options)),
    deleteUpload: (filename, options) => local.deleteUpload(filename, as(options)),
    ...bindDraftsLocalApi(local, as),
    ...bindPreviewLocalApi(local, as),
  };
}

declare module '../config/hooks' {
  // A hook's `api` is the local API (declared here, where the local API is).
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- only an interface merges into config's HookApi; it adds LocalApi's members and nothing else
  interface HookApi extends LocalApi {}
}

/** The If-Match of a local write, read as the header is (a malformed one is the same 400). */
function ifMatchOf(options: LocalPreconditionOptions | undefined): IfMatch | undefined {
  return options?.ifMatch === undefined ? undefined : parseIfMatch(options.ifMatch, 'ifMatch');
}

function uploadsNotConfigured(): Promise<never> {
  return Promise.reject(new Error('content-router: uploads are not configured; set the `uploads` option (docs/uploads.md) to store files'));
}

/** Binds the operations to this router's runtime. */
export function createLocalApi(runtime: Runtime): LocalApi {
  const { query: queryOptions } = runtime.config;
  const globalOf = (slug: string) => {
    const global = runtime.globals.get(slug);
    if (!global) throw new NotFoundError(`No global "${slug}".`);
    return global;
  };
  // A bulk write's where, read as a count's in the caller's view; required, as over REST (`{}` is every record).
  const whereIn = async (collection: ReturnType<typeof getCollection>, who: ReturnType<typeof actor>, where: unknown) => {
    if (where === undefined || where === null || typeof where !== 'object') throw new TypeError('content-router: api.local: updateMany/deleteMany need a where object ({} for every record)');
    const view = await operationView({ runtime, collection, ...who }, 'read');
    return parseCountQuery({ where }, view.of(collection).descriptor, view.registry, queryOptions).where;
  };
  return {
    // Async throughout: a refused option or an unknown slug is a rejection, never a throw at the call.
    // Queries are read in the caller's view: a field it may not read is unknown to it, as over HTTP.
    async find(slug, options = {}) {
      const who = actor(options);
      const collection = getCollection(runtime, slug);
      const view = await operationView({ runtime, collection, ...who }, 'read');
      const query = parseListQuery(queryOf(options), view.of(collection).descriptor, view.registry, queryOptions);
      return find({ runtime, collection, query, ...who });
    },
    async count(slug, options = {}) {
      const who = actor(options);
      const collection = getCollection(runtime, slug);
      const view = await operationView({ runtime, collection, ...who }, 'read');
      const query = parseCountQuery(queryOf(options), view.of(collection).descriptor, view.registry, queryOptions);
      return count({ runtime, collection, query, ...who });
    },
    async findById(slug, id, options = {}) {
      const who = actor(options);
      const collection = getCollection(runtime, slug);
      const view = await operationView({ runtime, collection, ...who }, 'read');
      const query = parseRecordQuery(queryOf(options), view.of(collection).descriptor, view.registry, queryOptions);
      return findById({ runtime, collection, id, ...query, ...who });
    },
    create: async (slug, data, options) => create({ runtime, collection: getCollection(runtime, slug), data, ...actor(options) }),
    createMany: async (slug, items, options) => createMany({ runtime, collection: getCollection(runtime, slug), items, ...actor(options) }),
    update: async (slug, id, data, options) => update({ runtime, collection: getCollection(runtime, slug), id, data, ifMatch: ifMatchOf(options), ...actor(options) }),
    delete: async (slug, id, options) =>
      deleteRecord({ runtime, collection: getCollection(runtime, slug), id, permanent: options?.permanent, ifMatch: ifMatchOf(options), ...actor(options) }),
    restore: async (slug, id, options) => restoreRecord({ runtime, collection: getCollection(runtime, slug), id, ifMatch: ifMatchOf(options), ...actor(options) }),
    async updateMany(slug, where, data, options = {}) {
      const who = actor(options);
      const collection = getCollection(runtime, slug);
      return updateMany({ runtime, collection, where: await whereIn(collection, who, where), data, dryRun: options.dryRun === true, ...who });
    },
    async deleteMany(slug, where, options = {}) {
      const who = actor(options);
      const collection = getCollection(runtime, slug);
      return deleteMany({ runtime, collection, where: await whereIn(collection, who, where), dryRun: options.dryRun === true, permanent: options.permanent, ...who });
    },
    findGlobal: async (slug, options) => findGlobal({ runtime, global: globalOf(slug), ...actor(options) }),
    updateGlobal: async (slug, data, options) => updateGlobal({ runtime, global: globalOf(slug), data, ifMatch: ifMatchOf(options), ...actor(options) }),
    // Replaced by the uploads feature when it is configured.
    upload: uploadsNotConfigured,
    deleteUpload: uploadsNotConfigured,
    ...createDraftsLocalApi(runtime, actor),
    ...createPreviewLocalApi(runtime, actor),
  };
}
