// `req.context` of custom endpoint handlers: the caller, and the local API bound to the caller's access,
// so a handler reads and writes exactly what the same user could through the REST routes.
import type { Request } from 'express';
import type { AuthUser } from '../config/types';
import type { LocalApi, LocalCountOptions, LocalFindOptions, LocalOptions } from '../local/local-api';
import type { FindResult } from '../operations/find-result';
import type { ApiRecord } from '../schema/to-record';

/** The options of a bound call: who acts and whether access applies are the binding's, not the handler's. */
type Unbound<T extends LocalOptions> = Omit<T, 'user' | 'overrideAccess'>;

/** What `req.context` holds inside a custom endpoint: the caller, and the operations run as the caller. */
export interface EndpointRequestContext {
  /** The authenticated caller (token, API key or the host's req.user), or null: also for an API key without the route's scope. */
  user: AuthUser | null;
  /** Lists records the caller may read: `find('posts', { where: { status: 'published' }, sort: '-publishedAt', limit: 5 })`. */
  find(collection: string, options?: Unbound<LocalFindOptions>): Promise<FindResult>;
  /** How many records the caller may read match: `count('posts', { filter: 'status:published' })` resolves to `{ total }`. */
  count(collection: string, options?: Unbound<LocalCountOptions>): Promise<{ total: number }>;
  /** One record the caller may read; a NotFoundError (404) otherwise. */
  findById(collection: string, id: string, options?: Unbound<Parameters<LocalApi['findById']>[2] & LocalOptions>): Promise<ApiRecord>;
  /** Creates a record with the caller's create access. */
  create(collection: string, data: Record<string, unknown>): Promise<ApiRecord>;
  /** Updates a record with the caller's update access. */
  update(collection: string, id: string, data: Record<string, unknown>): Promise<ApiRecord>;
  /** Deletes (or soft-deletes) a record with the caller's delete access. */
  delete(collection: string, id: string, options?: { permanent?: boolean }): Promise<{ deleted: true }>;
  /** Reads a global with the caller's read access. */
  findGlobal(slug: string): Promise<Record<string, unknown>>;
  /** Updates a global with the caller's update access. */
  updateGlobal(slug: string, data: Record<string, unknown>): Promise<Record<string, unknown>>;
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace -- Express's own extension point for request members (as passport adds req.user)
  namespace Express {
    interface Request {
      /** Set by content-router inside custom endpoint handlers (docs/endpoints.md). */
      context?: EndpointRequestContext;
    }
  }
}

/**
 * Binds the local API to `user` under access rules: every call says `overrideAccess: false` itself, last,
 * so neither the default nor a handler's own options (plain JavaScript may pass any) can lift the caller's
 * access. Calls carry `req`: their hooks see it and share the request's hook context.
 */
export function createRequestContext(local: LocalApi, user: AuthUser | null, req?: Request): EndpointRequestContext {
  const caller = { user, overrideAccess: false, req } as const;
  return {
    user,
    find: (collection, options) => local.find(collection, { ...options, ...caller }),
    count: (collection, options) => local.count(collection, { ...options, ...caller }),
    findById: (collection, id, options) => local.findById(collection, id, { ...options, ...caller }),
    create: (collection, data) => local.create(collection, data, caller),
    update: (collection, id, data) => local.update(collection, id, data, caller),
    delete: (collection, id, options) => local.delete(collection, id, { ...options, ...caller }),
    findGlobal: (slug) => local.findGlobal(slug, caller),
    updateGlobal: (slug, data) => local.updateGlobal(slug, data, caller),
  };
}

/** Sets `req.context` for the request's caller. */
export function setRequestContext(req: Request, local: LocalApi, user: AuthUser | null): EndpointRequestContext {
  const context = createRequestContext(local, user, req);
  req.context = context;
  return context;
}
