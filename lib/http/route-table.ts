// The route table: every route the router serves, declared once with its method, path, auth
// requirement, request/response shapes and the config its lifecycle hooks read. The dispatcher compiles
// it; the OpenAPI document describes it.
import type { Duplex } from 'node:stream';
import type { NextFunction, Request, Response } from 'express';
import type { AuthUser } from '../config/types';
import type { AccessOperation } from '../operations/access';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** A JSON Schema object (the OpenAPI 3.1 dialect). */
export type JsonSchema = Record<string, unknown>;

/**
 * A request or response body, named by what it is rather than spelled out, so the document can derive
 * it from the collection's fields: records, inputs, list envelopes, globals, or a literal schema.
 */
export type BodyShape =
  | { kind: 'record'; slug: string }
  /** `omit`: writable fields this route refuses (register: role and verified); the body is then spelled out in place. */
  | { kind: 'record-input'; slug: string; mode: 'create' | 'update'; omit?: readonly string[] }
  | { kind: 'batch-input'; slug: string }
  | { kind: 'batch'; slug: string }
  | { kind: 'list'; slug: string }
  /** A bulk write's answer: the records as written (ids for deletes), counts, and the records that failed. */
  | { kind: 'bulk'; slug: string; op: 'update' | 'delete' }
  | { kind: 'global'; slug: string }
  | { kind: 'global-input'; slug: string }
  /**
   * A versioned collection's (`global`: global's) workflow answers: a working copy with its `_status`, the list
   * of working copies (`GET /<slug>?draft=true`, in the record list's envelopes), one version with its record,
   * the history list, and a diff of two versions.
   */
  | { kind: 'draft'; slug: string; global?: boolean }
  | { kind: 'draft-list'; slug: string }
  | { kind: 'version'; slug: string; global?: boolean }
  | { kind: 'version-list'; slug: string; global?: boolean }
  | { kind: 'version-diff'; slug: string; global?: boolean }
  /** A scheduled publish or unpublish, a record's scheduled actions (`{ data }`), a preview link: the same for every collection. */
  | { kind: 'schedule' }
  | { kind: 'schedule-list' }
  | { kind: 'preview-link' }
  /** A stored file as the API shows it (POST /upload's answer, a populated upload field). */
  | { kind: 'file' }
  | { kind: 'schema'; schema: JsonSchema }
  /**
   * A literal schema under a name of its own, so client generators name its type: the document adds each of
   * `schemas` as a component by its key (their `$ref`s may name each other) and refers to `name`, one of
   * them. These names are kept free of collections' names.
   */
  | { kind: 'named'; name: string; schemas: Readonly<Record<string, JsonSchema>> }
  /** Exactly one of several shapes (a create body that is one record or a `{ data: [...] }` batch). */
  | { kind: 'one-of'; shapes: BodyShape[] }
  /** An object of named parts, every one always present and nothing else (a login answer: the user record and the tokens). */
  | { kind: 'object'; properties: Record<string, BodyShape> };

/** One query parameter of a route. */
export interface QueryParameter {
  name: string;
  description: string;
  schema: JsonSchema;
}

/** A request header a route reads (If-Match, Idempotency-Key), for the document. */
export interface HeaderParameter {
  name: string;
  description: string;
  required?: boolean;
  schema: JsonSchema;
}

export interface RouteResponse {
  description: string;
  /** Headers the answer carries (ETag, Location), by name. */
  headers?: Record<string, { description: string; schema: JsonSchema }>;
  /**
   * Absent for problem+json errors (their shape is fixed) and empty answers. An error (4xx/5xx) with a shape
   * is answered in that shape as application/json instead (the MCP endpoint's JSON-RPC errors).
   */
  shape?: BodyShape;
  /**
   * An error with a `shape` that the router also answers as problem+json for another reason (MCP's 400: the
   * SDK's parse error, or the router's bad Idempotency-Key): the document lists both. Default false.
   */
  problem?: boolean;
  /** Media type of a non-JSON answer (an HTML page, a script); the body is then described as a string. */
  contentType?: string;
}

/**
 * A route handler: answers through `res`, or throws (async) an error the router maps to problem+json.
 * The dispatcher also passes `next`: calling it without an error hands the request on to the host.
 */
export type RouteHandler = (req: Request, res: Response, next?: NextFunction) => void | Promise<void>;

/**
 * Takes over an upgrade request (WebSocket) of a GET route once the route's request phases (database gate, rate
 * limit, ...) let it through. Rejecting refuses it: the error is answered as problem+json on the socket, so
 * it must reject before writing anything there, and not after taking the socket.
 */
export type UpgradeHandler = (req: Request, socket: Duplex, head: Buffer) => Promise<void>;

/**
 * The per-route config bag: route data owned by a hook of the lifecycle rather than by the route table.
 * Each owner declares its keys by merging into this interface (`declare module`), beside the code that reads them.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a merge point: each owner adds its keys by declaration merging
export interface RouteConfig {}

/** The access rule a route runs: its operation on the records of the collection (or on the global) `slug`. */
export interface RouteRule {
  /** The rule, or the rules a route runs every one of (restoring a version reads the history and updates). */
  op: AccessOperation | readonly AccessOperation[];
  slug: string;
  /** `slug` names a global. Default false. */
  global?: boolean;
}

/** Who asks a route's `reach`: the request's caller (null: anonymous) and the request. */
export interface RouteCaller {
  user: AuthUser | null;
  req: Request;
}

export interface RouteDef {
  method: HttpMethod;
  /** Relative to the mount path; literal segments and `:param` segments only (`/posts/:id/restore`). */
  path: string;
  /** Stable and unique: `<slug>.<action>` (`posts.list`, `users.login`, `globals.site.update`). */
  operationId: string;
  summary: string;
  /** Longer text for the OpenAPI document. Default: none. */
  description?: string;
  tags: string[];
  /**
   * `none`: credentials are ignored; `optional`: access rules decide with or without a user;
   * `required`: an authenticated user (or API key) is needed.
   */
  auth: 'none' | 'optional' | 'required';
  /**
   * `list` and `record` stand for the list and single-record query languages; `count` for the list's conditions
   * alone. A list of parameters may name the list's conditions (`where`, `filter`, `search`) as `'conditions'`.
   */
  query?: 'list' | 'record' | 'count' | Array<QueryParameter | 'conditions'>;
  /**
   * The collection whose records the route serves: the document describes its query parameters from the
   * collection (page sizes, soft-deleted records, examples naming its own fields). Default: none.
   */
  collection?: string;
  /**
   * The access rule that decides whether a caller may use the route at all: a per-caller OpenAPI document
   * leaves the route out for a caller that rule refuses outright. Default none: every caller its `auth` lets in.
   */
  rule?: RouteRule;
  /**
   * Whether a caller may use the route at all where no collection's rule says so (`rule`): API keys on the
   * routes that manage keys and sessions, the audit log's read rule, the files' rules, the write scope a
   * preview link needs. False leaves the route out of that caller's per-caller OpenAPI document; the route
   * still judges every request itself. Default: every caller `auth` and `rule` let in.
   */
  reach?: (caller: RouteCaller) => Promise<boolean>;
  /** Request headers the route reads, beyond credentials and content negotiation. */
  headers?: HeaderParameter[];
  /**
   * The body the route takes. A JSON body is read by the core's parser in the parse phase; a multipart
   * one by the parse hook of the feature owning the route, or streamed by the handler itself (an upload).
   */
  body?: {
    type: 'json' | 'multipart';
    shape: BodyShape;
    required: boolean;
    /**
     * A JSON body the route's feature reads itself in the parse phase, so the core's parser leaves it alone
     * (MCP: a malformed message must reach the SDK, which answers its own JSON-RPC error). Default false.
     */
    ownParser?: boolean;
  };
  /** What the lifecycle's hooks read of this route (the database gate, the rate limiter, ...). */
  config?: RouteConfig;
  /** Answers by status; 4xx/5xx entries are problem+json. */
  responses: Record<number, RouteResponse>;
  handler: RouteHandler;
  /** GET routes: serves upgrade requests of this path once the host calls api.attach(server). */
  upgrade?: UpgradeHandler;
  /** Where the route was declared when that is config the host wrote (`endpoints[2]`), for start-up errors. */
  source?: string;
  /**
   * A route that only explains a 404 (its feature is off for this collection: "versions are off"): left out
   * of the OpenAPI document and of `api.routes`, and it gives way to any route with the same method and path
   * (a custom endpoint). Default false.
   */
  undocumented?: boolean;
}
