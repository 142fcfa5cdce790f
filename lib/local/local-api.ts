// The local API: the same operations as REST, called from server code. Who acts and whether access rules
// apply are separate options, as in Payload's local API: `overrideAccess` defaults to true without a user.
import { type BulkResult, count, create, createMany, deleteMany, deleteRecord, find, findById, findGlobal, restoreRecord, update, updateMany } from '../operations';
import { type IfMatch, parseIfMatch } from '../operations/precondition';
import type { UploadedFile } from '../operations/file-storage';
import type { FindResult } from '../operations/find-result';
import { operationView } from '../operations/operation-view';
import { type HookCaller, type Runtime, getCollection } from '../operations/runtime';
import { updateGlobal } from '../operations/globals';
import { NotFoundError } from '../errors';
import { parseCountQuery, parseListQuery, parseRecordQuery } from '../query';
import { parseAgainst, parseVersionListQuery } from '../query/parse-version-query';
import { type VersionDiff, type VersionPage, type VersionRecord, diffVersion, findVersion, listVersions, restoreVersion } from '../operations/versions';
import type { ApiRecord } from '../schema/to-record';
import type { CallerSchema } from '../config/caller-schema';
import { describeSchema } from '../operations/describe-schema';
import { type DraftsLocalApi, bindDraftsLocalApi, createDraftsLocalApi } from './draft-api';
import { type PublishLocalApi, createPublishLocalApi } from './publish-api';
import { type PreviewLocalApi, bindPreviewLocalApi, createPreviewLocalApi } from './preview-api';

// The options every call takes, and who a call runs as (actor), live in local-options.ts: the members other
// files add (draft-api.ts, publish-api.ts) read them too, without an import circle back to this file.
import { type LocalBulkOptions, type LocalCountOptions, type LocalFindOptions, type LocalOptions, type LocalPreconditionOptions, actor } from './local-options';
export { type LocalBulkOptions, type LocalCountOptions, type LocalFindOptions, type LocalOptions, type LocalPreconditionOptions, actor };

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

/** A history list's options: the paging the REST list of versions takes, as values. */
export interface LocalVersionListOptions extends LocalOptions {
  page?: number;
  perPage?: number;
  limit?: number;
  /** A nextCursor or prevCursor ('' for the first page): the cursor envelope. */
  cursor?: string;
  count?: boolean;
}

/** A diff's other side: a version number, the record as it stands, or its working copy. Default: the version before. */
export interface LocalDiffOptions extends LocalOptions {
  against?: number | 'current' | 'draft';
}

/** A restore's options: If-Match, and on a drafts collection whether to write the published record. */
export interface LocalRestoreOptions extends LocalPreconditionOptions {
  /** Drafts collections: restore into the published record instead of the working copy. Default false. */
  publish?: boolean;
}

/**
 * The operations of `api.local`; the working copies' members are DraftsLocalApi's (draft-api.ts), publish,
 * unpublish and scheduled actions PublishLocalApi's (publish-api.ts), preview links PreviewLocalApi's (preview-api.ts).
 */
export interface LocalApi extends DraftsLocalApi, PublishLocalApi, PreviewLocalApi<LocalOptions> {
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
  /** A record's versions, newest first, as `GET /<slug>/:id/versions` answers them (needs readVersions). */
  versions(collection: string, id: string, options?: LocalVersionListOptions): Promise<VersionPage>;
  /** Version `version` of a record, its doc shaped for the caller, as `GET /<slug>/:id/versions/:version`. */
  version(collection: string, id: string, version: number, options?: LocalOptions): Promise<VersionRecord>;
  /** The fields a version changed against another state (default: the version before), as `.../diff`. */
  diffVersion(collection: string, id: string, version: number, options?: LocalDiffOptions): Promise<VersionDiff>;
  /** Writes a version's values back through the ordinary update (a record deleted for good is created again with its id), as `.../restore`. */
  restoreVersion(collection: string, id: string, version: number, options?: LocalRestoreOptions): Promise<ApiRecord>;
  /** A global's versions, newest first, as `GET /globals/<slug>/versions`. */
  globalVersions(slug: string, options?: LocalVersionListOptions): Promise<VersionPage>;
  /** Version `version` of a global, as `GET /globals/<slug>/versions/:version`. */
  globalVersion(slug: string, version: number, options?: LocalOptions): Promise<VersionRecord>;
  /** The fields a global's version changed, as `GET /globals/<slug>/versions/:version/diff`. */
  diffGlobalVersion(slug: string, version: number, options?: LocalDiffOptions): Promise<VersionDiff>;
  /** Writes a global's version back, as `POST /globals/<slug>/versions/:version/restore`. */
  restoreGlobalVersion(slug: string, version: number, options?: LocalRestoreOptions): Promise<Record<string, unknown>>;
  /** Deletes a stored file by its stored name (`filename`, the last segment of its `url`) as `DELETE /uploads/:filename` does; needs the `uploads` option. */
  deleteUpload(filename: string, options?: LocalOptions): Promise<{ deleted: true }>;
  /**
   * The schema as the call's caller sees it, as `GET /schema` answers it: the collections and globals it may
   * do something on, the fields it may read, its rights. Without a user (access overridden): every right.
   */
  schema(options?: LocalOptions): Promise<CallerSchema>;
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
    versions: (slug, id, options) => local.versions(slug, id, as(options)),
    version: (slug, id, version, options) => local.version(slug, id, version, as(options)),
    diffVersion: (slug, id, version, options) => local.diffVersion(slug, id, version, as(options)),
    restoreVersion: (slug, id, version, options) => local.restoreVersion(slug, id, version, as(options)),
    globalVersions: (slug, options) => local.globalVersions(slug, as(options)),
    globalVersion: (slug, version, options) => local.globalVersion(slug, version, as(options)),
    diffGlobalVersion: (slug, version, options) => local.diffGlobalVersion(slug, version, as(options)),
    restoreGlobalVersion: (slug, version, options) => local.restoreGlobalVersion(slug, version, as(options)),
    upload: (source, options) => local.upload(source, as(options)),
    deleteUpload: (filename, options) => local.deleteUpload(filename, as(options)),
    schema: (options) => local.schema(as(options)),
    ...bindDraftsLocalApi(local, as),
    publish: (slug, id, options) => local.publish(slug, id, as(options)),
    unpublish: (slug, id, options) => local.unpublish(slug, id, as(options)),
    publishGlobal: (slug, options) => local.publishGlobal(slug, as(options)),
    unpublishGlobal: (slug, options) => local.unpublishGlobal(slug, as(options)),
    schedule: (target, input, options) => local.schedule(target, input, as(options)),
    schedules: (target, options) => local.schedules(target, as(options)),
    cancelSchedule: (target, scheduleId, options) => local.cancelSchedule(target, scheduleId, as(options)),
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
    // A record's history (a global's: the same with its slug), as the REST history routes.
    versions: async (slug, id, options = {}) => {
      const collection = getCollection(runtime, slug);
      return listVersions({ runtime, collection, id, query: parseVersionListQuery(queryOf(options), collection.descriptor, queryOptions), ...actor(options) });
    },
    version: async (slug, id, version, options) => findVersion({ runtime, collection: getCollection(runtime, slug), id, version, ...actor(options) }),
    diffVersion: async (slug, id, version, options = {}) => diffVersion({ runtime, collection: getCollection(runtime, slug), id, version, against: parseAgainst({ against: options.against }), ...actor(options) }),
    restoreVersion: async (slug, id, version, options = {}) =>
      restoreVersion({ runtime, collection: getCollection(runtime, slug), id, version, publish: options.publish === true, ifMatch: ifMatchOf(options), ...actor(options) }) as Promise<ApiRecord>,
    globalVersions: async (slug, options = {}) => {
      const global = globalOf(slug);
      return listVersions({ runtime, collection: global, query: parseVersionListQuery(queryOf(options), global.descriptor, queryOptions), ...actor(options) });
    },
    globalVersion: async (slug, version, options) => findVersion({ runtime, collection: globalOf(slug), version, ...actor(options) }),
    diffGlobalVersion: async (slug, version, options = {}) => diffVersion({ runtime, collection: globalOf(slug), version, against: parseAgainst({ against: options.against }), ...actor(options) }),
    restoreGlobalVersion: async (slug, version, options = {}) =>
      restoreVersion({ runtime, collection: globalOf(slug), version, publish: options.publish === true, ifMatch: ifMatchOf(options), ...actor(options) }),
    ...createPublishLocalApi(runtime),
    // Replaced by the uploads feature when it is configured.
    upload: uploadsNotConfigured,
    deleteUpload: uploadsNotConfigured,
    schema: async (options) => describeSchema({ runtime, ...actor(options) }),
    ...createDraftsLocalApi(runtime, actor),
    ...createPreviewLocalApi(runtime, actor),
  };
}
