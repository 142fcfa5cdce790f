// The local API of working copies (drafts collections and globals): the same operations as the draft
// routes, from server code, with the local API's rules for who acts (LocalOptions). Merged into LocalApi.
import type { AuthUser } from '../config/types';
import { NotFoundError } from '../errors';
import { createDraft } from '../operations/drafts/create-draft';
import { discardDraft } from '../operations/drafts/discard-draft';
import { findDraft } from '../operations/drafts/find-draft';
import { type DraftPage, findDrafts } from '../operations/drafts/find-drafts';
import { discardGlobalDraft, findGlobalDraft, saveGlobalDraft } from '../operations/drafts/global-drafts';
import { saveDraft } from '../operations/drafts/save-draft';
import { type DraftRecord, type DraftStatus, withStatus } from '../operations/drafts/working-copy';
import { operationView } from '../operations/operation-view';
import { type IfMatch, parseIfMatch } from '../operations/precondition';
import type { RequestState } from '../operations/request-state';
import { type Runtime, getCollection } from '../operations/runtime';
import { parseListQuery, parseRecordQuery } from '../query';
import type { LocalFindOptions, LocalOptions, LocalPreconditionOptions } from './local-api';

export type { DraftPage, DraftRecord, DraftStatus };

/** A global's working copy: its fields and `_status`. */
export type GlobalDraft = Record<string, unknown> & { _status: DraftStatus };

/** The working copies' members of `api.local` (docs/versions.md#drafts). Each rejects with a 404 where drafts are off. */
export interface DraftsLocalApi {
  /** Creates a record that exists only as a working copy, as `POST /<slug>?draft=true` does (`_status: 'draft'`). */
  createDraft(collection: string, data: Record<string, unknown>, options?: LocalOptions): Promise<DraftRecord>;
  /** A record's working copy with `_status`, as `GET /<slug>/:id/draft` answers it (needs readDrafts with a user). */
  findDraft(collection: string, id: string, options?: LocalOptions & { depth?: number; include?: string; fields?: string }): Promise<DraftRecord>;
  /** The working copies, with every list option of `find`, as `GET /<slug>?draft=true` answers them. */
  findDrafts(collection: string, options?: LocalFindOptions): Promise<DraftPage>;
  /** Saves a record's working copy, as `PATCH /<slug>/:id/draft` does; `ifMatch` takes the draft's ETag. */
  saveDraft(collection: string, id: string, data: Record<string, unknown>, options?: LocalPreconditionOptions): Promise<DraftRecord>;
  /** Drops a record's unpublished changes, as `DELETE /<slug>/:id/draft` does: the reset working copy, or `{ deleted: true }` for a never-published record. */
  discardDraft(collection: string, id: string, options?: LocalPreconditionOptions): Promise<DraftRecord | { deleted: true }>;
  /** A global's working copy with `_status`. */
  findGlobalDraft(slug: string, options?: LocalOptions): Promise<GlobalDraft>;
  /** Saves a global's working copy; `ifMatch` takes the draft's ETag. */
  saveGlobalDraft(slug: string, data: Record<string, unknown>, options?: LocalPreconditionOptions): Promise<GlobalDraft>;
  /** Drops a global's unpublished changes. */
  discardGlobalDraft(slug: string, options?: LocalPreconditionOptions): Promise<GlobalDraft>;
}

/** Who acts, as the local API reads it from LocalOptions (local-api.ts `actor`), passed in. */
type ActorOf = (options: LocalOptions | undefined) => { user: AuthUser | null; overrideAccess: boolean; trusted: boolean; state: RequestState; req?: LocalOptions['req'] };

function ifMatchOf(options: LocalPreconditionOptions | undefined): IfMatch | undefined {
  return options?.ifMatch === undefined ? undefined : parseIfMatch(options.ifMatch, 'ifMatch');
}

/** The query options among the call's options: everything but who is acting. */
function queryOf<T extends LocalOptions>(options: T): Omit<T, keyof LocalOptions> {
  const { user: _user, overrideAccess: _override, context: _context, req: _req, ...query } = options;
  return query;
}

/** Binds the working copies' operations to this router's runtime. */
export function createDraftsLocalApi(runtime: Runtime, actor: ActorOf): DraftsLocalApi {
  const { query: queryOptions } = runtime.config;
  const globalOf = (slug: string) => {
    const global = runtime.globals.get(slug);
    if (!global) throw new NotFoundError(`No global "${slug}".`);
    return global;
  };
  return {
    createDraft: async (slug, data, options) => withStatus(await createDraft({ runtime, collection: getCollection(runtime, slug), data, ...actor(options) })),
    async findDraft(slug, id, options = {}) {
      const who = actor(options);
      const collection = getCollection(runtime, slug);
      const view = await operationView({ runtime, collection, ...who }, 'read');
      const query = parseRecordQuery(queryOf(options), view.of(collection).descriptor, view.registry, queryOptions);
      return withStatus(await findDraft({ runtime, collection, id, select: query.select, populate: query.populate, ...who }));
    },
    async findDrafts(slug, options = {}) {
      const who = actor(options);
      const collection = getCollection(runtime, slug);
      const view = await operationView({ runtime, collection, ...who }, 'read');
      const query = parseListQuery(queryOf(options), view.of(collection).descriptor, view.registry, queryOptions);
      return findDrafts({ runtime, collection, query, ...who });
    },
    saveDraft: async (slug, id, data, options) => withStatus(await saveDraft({ runtime, collection: getCollection(runtime, slug), id, data, ifMatch: ifMatchOf(options), ...actor(options) })),
    async discardDraft(slug, id, options) {
      const answer = await discardDraft({ runtime, collection: getCollection(runtime, slug), id, ifMatch: ifMatchOf(options), ...actor(options) });
      return 'deleted' in answer ? answer : withStatus(answer);
    },
    findGlobalDraft: async (slug, options) => withStatus(await findGlobalDraft({ runtime, global: globalOf(slug), ...actor(options) })),
    saveGlobalDraft: async (slug, data, options) => withStatus(await saveGlobalDraft({ runtime, global: globalOf(slug), data, ifMatch: ifMatchOf(options), ...actor(options) })),
    discardGlobalDraft: async (slug, options) => withStatus(await discardGlobalDraft({ runtime, global: globalOf(slug), ifMatch: ifMatchOf(options), ...actor(options) })),
  };
}

/** The working copies' members bound to a hook's caller (`as` gives a call the caller's options unless it names its own). */
export function bindDraftsLocalApi(local: DraftsLocalApi, as: <T extends LocalOptions>(options?: T) => T): DraftsLocalApi {
  return {
    createDraft: (slug, data, options) => local.createDraft(slug, data, as(options)),
    findDraft: (slug, id, options) => local.findDraft(slug, id, as(options)),
    findDrafts: (slug, options) => local.findDrafts(slug, as(options)),
    saveDraft: (slug, id, data, options) => local.saveDraft(slug, id, data, as(options)),
    discardDraft: (slug, id, options) => local.discardDraft(slug, id, as(options)),
    findGlobalDraft: (slug, options) => local.findGlobalDraft(slug, as(options)),
    saveGlobalDraft: (slug, data, options) => local.saveGlobalDraft(slug, data, as(options)),
    discardGlobalDraft: (slug, options) => local.discardGlobalDraft(slug, as(options)),
  };
}
