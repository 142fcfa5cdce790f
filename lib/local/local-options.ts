// The options of api.local's calls: who is acting and whether access rules apply (LocalOptions), and each
// kind of call's own. Kept apart from local-api.ts so the members other files add (draft-api.ts) read them
// without an import circle.
import type { Request } from 'express';
import type { HookContext } from '../config/hooks';
import type { AuthUser } from '../config/types';

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
