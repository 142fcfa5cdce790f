// The options of api.local's calls (who acts and whether access rules apply; each kind of call's own) and
// how they are read into an operation's caller (actor). Kept apart from local-api.ts so the members other
// files add (draft-api.ts, publish-api.ts) read them without an import circle.
import type { Request } from 'express';
import type { HookContext } from '../config/hooks';
import type { AuthUser } from '../config/types';
import { type RequestState, contextState, requestState } from '../operations/request-state';

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
