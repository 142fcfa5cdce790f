// The local API: the same operations as REST, called from server code. Access rules are
// overridden unless a `user` is passed, in which case that user's rules apply exactly as over HTTP.
import type { AuthUser } from '../config/types';
import { create, createMany, deleteRecord, find, findById, findGlobal, restoreRecord, update } from '../operations';
import type { UploadedFile } from '../operations/file-storage';
import type { FindResult } from '../operations/find-result';
import { type Runtime, getCollection } from '../operations/runtime';
import { updateGlobal } from '../operations/globals';
import { NotFoundError } from '../errors';
import { parseListQuery, parseRecordQuery } from '../query';
import type { ApiRecord } from '../schema/to-record';

/** Who is acting: omit `user` to override access; pass a user, or null/undefined for an anonymous caller, to apply it. */
export interface LocalOptions {
  user?: AuthUser | null;
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

export interface LocalApi {
  find(collection: string, options?: LocalFindOptions): Promise<FindResult>;
  findById(
    collection: string,
    id: string,
    options?: LocalOptions & { depth?: number; include?: string; fields?: string; includeDeleted?: boolean },
  ): Promise<ApiRecord>;
  create(collection: string, data: Record<string, unknown>, options?: LocalOptions): Promise<ApiRecord>;
  createMany(collection: string, data: Record<string, unknown>[], options?: LocalOptions): Promise<ApiRecord[]>;
  update(collection: string, id: string, data: Record<string, unknown>, options?: LocalOptions): Promise<ApiRecord>;
  delete(collection: string, id: string, options?: LocalOptions & { permanent?: boolean }): Promise<{ deleted: true }>;
  restore(collection: string, id: string, options?: LocalOptions): Promise<ApiRecord>;
  findGlobal(slug: string, options?: LocalOptions): Promise<Record<string, unknown>>;
  updateGlobal(slug: string, data: Record<string, unknown>, options?: LocalOptions): Promise<Record<string, unknown>>;
  /** Stores a file (a stream or its bytes) as `POST /upload` does; needs the `uploads` option. */
  upload(source: NodeJS.ReadableStream | Uint8Array, options: LocalUploadOptions): Promise<UploadedFile>;
  /** Deletes a stored file by its stored name (`filename`, the last segment of its `url`) as `DELETE /uploads/:filename` does; needs the `uploads` option. */
  deleteUpload(filename: string, options?: LocalOptions): Promise<{ deleted: true }>;
}

/** Who is acting, as every operation takes it: the local API's rule for `user`, shared with the features' local members. */
export function actor(options: LocalOptions | undefined) {
  // Only an omitted `user` key overrides: `{ user: req.user }` of an anonymous request must not.
  const overrideAccess = options === undefined || !Object.hasOwn(options, 'user');
  // Server code acting without a user may also write hidden fields; a named caller may not.
  return { user: options?.user ?? null, overrideAccess, trusted: overrideAccess };
}

async function uploadsNotConfigured(): Promise<never> {
  throw new Error('content-router: uploads are not configured; set the `uploads` option (docs/uploads.md) to store files');
}

/** Binds the operations to this router's runtime. */
export function createLocalApi(runtime: Runtime): LocalApi {
  const { registry } = runtime;
  const { query: queryOptions } = runtime.config;
  const globalOf = (slug: string) => {
    const global = runtime.globals.get(slug);
    if (!global) throw new NotFoundError(`No global "${slug}".`);
    return global;
  };
  return {
    async find(slug, options = {}) {
      const collection = getCollection(runtime, slug);
      const { user: _user, ...raw } = options;
      const query = parseListQuery(raw, collection.descriptor, registry, queryOptions);
      return find({ runtime, collection, query, ...actor(options) });
    },
    async findById(slug, id, options = {}) {
      const collection = getCollection(runtime, slug);
      const { user: _user, ...raw } = options;
      const query = parseRecordQuery(raw, collection.descriptor, registry, queryOptions);
      return findById({ runtime, collection, id, ...query, ...actor(options) });
    },
    create: (slug, data, options) => create({ runtime, collection: getCollection(runtime, slug), data, ...actor(options) }),
    createMany: (slug, items, options) => createMany({ runtime, collection: getCollection(runtime, slug), items, ...actor(options) }),
    update: (slug, id, data, options) => update({ runtime, collection: getCollection(runtime, slug), id, data, ...actor(options) }),
    delete: (slug, id, options) =>
      deleteRecord({ runtime, collection: getCollection(runtime, slug), id, permanent: options?.permanent, ...actor(options) }),
    restore: (slug, id, options) => restoreRecord({ runtime, collection: getCollection(runtime, slug), id, ...actor(options) }),
    findGlobal: async (slug, options) => findGlobal({ runtime, global: globalOf(slug), ...actor(options) }),
    updateGlobal: async (slug, data, options) => updateGlobal({ runtime, global: globalOf(slug), data, ...actor(options) }),
    // Replaced by the uploads feature when it is configured.
    upload: uploadsNotConfigured,
    deleteUpload: uploadsNotConfigured,
  };
}
