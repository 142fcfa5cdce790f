// The local API's preview-link members: the same operations as the preview routes and the draft route's
// `?preview=`, called from server code. Merged into LocalApi by local-api.ts, which hands in how it reads
// who is acting from its options (so this file does not import it back).
import type { Request } from 'express';
import type { AuthUser } from '../config/types';
import { NotFoundError } from '../errors';
import { findDraftByPreview } from '../operations/drafts/preview';
import { createPreview, type PreviewLink } from '../operations/preview/create-preview';
import { revokePreviews } from '../operations/preview/revoke-previews';
import type { RequestState } from '../operations/request-state';
import { type Runtime, getCollection } from '../operations/runtime';
import type { ApiRecord } from '../schema/to-record';

export type { PreviewLink };

/** `expiresIn` of a new link: a duration (`30m`, `1h`, `7d`) or a number of seconds; default `1h`, at most `7d`. */
export interface PreviewLinkOptions {
  expiresIn?: string | number;
}

/** The preview members of LocalApi; `O`: its options of who is acting (LocalOptions). */
export interface PreviewLocalApi<O> {
  /**
   * Makes a preview link of the record's working copy. `path` is the draft route with `?preview=<token>`,
   * relative to the router's mount. Needs the readDrafts rule unless access is overridden; 404 when the
   * collection keeps no drafts or the record does not exist.
   */
  createPreview(collection: string, id: string, options?: O & PreviewLinkOptions): Promise<PreviewLink>;
  /** Revokes every preview link of the record. Needs the readDrafts rule unless access is overridden. */
  revokePreviews(collection: string, id: string, options?: O): Promise<{ revoked: number }>;
  /**
   * The working copy a preview token opens, shown as an anonymous reader would see the record published
   * (the token is the only credential: the call runs as no user). Rejects with a 401
   * `invalid_preview_token` for a wrong, expired, revoked or other record's token.
   */
  findDraftByPreview(collection: string, id: string, token: string, options?: O): Promise<ApiRecord>;
  /** createPreview for a global's working copy. */
  createGlobalPreview(slug: string, options?: O & PreviewLinkOptions): Promise<PreviewLink>;
  /** revokePreviews for a global. */
  revokeGlobalPreviews(slug: string, options?: O): Promise<{ revoked: number }>;
  /** findDraftByPreview for a global (the global's fields, without an id). */
  findGlobalDraftByPreview(slug: string, token: string, options?: O): Promise<ApiRecord>;
}

/** Who acts, as local-api.ts reads it from a call's options. */
export interface LocalCaller {
  user: AuthUser | null;
  overrideAccess: boolean;
  state: RequestState;
  req?: Request;
}

/** The preview members on this runtime; `callerOf`: local-api.ts's reading of its options. */
export function createPreviewLocalApi<O extends { user?: AuthUser | null; overrideAccess?: boolean }>(runtime: Runtime, callerOf: (options: O | undefined) => LocalCaller): PreviewLocalApi<O> {
  const globalOf = (slug: string) => {
    const global = runtime.globals.get(slug);
    if (!global) throw new NotFoundError(`No global "${slug}".`);
    return global;
  };
  // The reader of a preview is anonymous whatever the call says: the token is its only credential.
  const reader = (options: O | undefined) => callerOf({ ...options, user: null, overrideAccess: false } as O);
  const withoutLifetime = (options: (O & PreviewLinkOptions) | undefined) => {
    const { expiresIn, ...who } = options ?? ({} as O & PreviewLinkOptions);
    return { expiresIn, who: who as O };
  };
  // Async throughout: a refused option or an unknown slug is a rejection, never a throw at the call.
  return {
    async createPreview(slug, id, options) {
      const { expiresIn, who } = withoutLifetime(options);
      return createPreview({ runtime, collection: getCollection(runtime, slug), id, expiresIn, ...callerOf(who) });
    },
    revokePreviews: async (slug, id, options) => revokePreviews({ runtime, collection: getCollection(runtime, slug), id, ...callerOf(options) }),
    findDraftByPreview: async (slug, id, token, options) => findDraftByPreview({ runtime, collection: getCollection(runtime, slug), id, token, ...reader(options) }),
    async createGlobalPreview(slug, options) {
      const { expiresIn, who } = withoutLifetime(options);
      return createPreview({ runtime, collection: globalOf(slug), expiresIn, ...callerOf(who) });
    },
    revokeGlobalPreviews: async (slug, options) => revokePreviews({ runtime, collection: globalOf(slug), ...callerOf(options) }),
    findGlobalDraftByPreview: async (slug, token, options) => findDraftByPreview({ runtime, collection: globalOf(slug), id: slug, token, ...reader(options) }),
  };
}

/** The preview members of a hook's `api`: each call runs as the hook's caller unless it says otherwise (`as`). */
export function bindPreviewLocalApi<O>(local: PreviewLocalApi<O>, as: <T extends O>(options?: T) => T): PreviewLocalApi<O> {
  return {
    createPreview: (slug, id, options) => local.createPreview(slug, id, as(options)),
    revokePreviews: (slug, id, options) => local.revokePreviews(slug, id, as(options)),
    findDraftByPreview: (slug, id, token, options) => local.findDraftByPreview(slug, id, token, as(options)),
    createGlobalPreview: (slug, options) => local.createGlobalPreview(slug, as(options)),
    revokeGlobalPreviews: (slug, options) => local.revokeGlobalPreviews(slug, as(options)),
    findGlobalDraftByPreview: (slug, token, options) => local.findGlobalDraftByPreview(slug, token, as(options)),
  };
}
