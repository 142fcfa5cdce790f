// Public configuration types: the one object a host passes to contentRouter().
// Every default is stated in JSDoc; resolve-config.ts turns this into a complete, frozen internal config.
import type { Clock } from '../util/clock';
import type { Connection } from 'mongoose';
import type { Request, Response, Router } from 'express';
import type { CollectionHooks, FieldAccess, FieldHooks, GlobalHooks } from './hooks';
import type { AuditEntry } from './audit-entry';
import type { AuthUser, Scope } from './user';

export type { AuthUser, Scope, SystemActor } from './user';

/** The canonical field types; `string` and `datetime` are accepted aliases of `text` and `date`. */
export type FieldType =
  | 'text'
  | 'string'
  | 'textarea'
  | 'email'
  | 'number'
  | 'boolean'
  | 'date'
  | 'datetime'
  | 'select'
  | 'relationship'
  | 'upload'
  | 'array'
  | 'json';

/** Scalar types an `array` field may hold. */
export type ArrayItemType = 'text' | 'string' | 'textarea' | 'email' | 'number' | 'boolean' | 'date' | 'datetime';

/** What every field type accepts. */
interface BaseField {
  /** Default false. A missing value is a 400 on create. */
  required?: boolean;
  /** Default false. Becomes a unique index; a duplicate value is a 409 naming the field. */
  unique?: boolean;
  /** Default false. Never returned, filtered, sorted, selected or searched by clients. */
  hidden?: boolean;
  /** Adds a (non-unique) index. Default false. */
  index?: boolean;
  /** A value, or a function returning one, used when create omits the field. Default: none. */
  default?: unknown;
  /** `beforeChange` and `afterRead` hooks of this field (docs/hooks.md). Default: none. */
  hooks?: FieldHooks;
  /** Who may read, create and update this field, decided once per request from the caller. Default: everyone the collection lets in. */
  access?: FieldAccess;
}

/** `text` (alias `string`), `textarea` and `email`: strings, with optional length bounds. */
export interface TextFieldConfig extends BaseField {
  type: 'text' | 'string' | 'textarea' | 'email';
  /** Fewest characters. Default: no bound. */
  minLength?: number;
  /** Most characters. Default: no bound. */
  maxLength?: number;
}

/** A finite number, with optional bounds. */
export interface NumberFieldConfig extends BaseField {
  type: 'number';
  /** Smallest value. Default: no bound. */
  min?: number;
  /** Largest value. Default: no bound. */
  max?: number;
}

export interface BooleanFieldConfig extends BaseField {
  type: 'boolean';
}

/** A timestamp (alias `datetime`), read and written as ISO-8601. */
export interface DateFieldConfig extends BaseField {
  type: 'date' | 'datetime';
}

/** What list fields (`array`, and `hasMany` select, relationship and upload fields) accept. */
interface ListOptions {
  /**
   * Most items the list holds: a body with more is a 400 `too_many_items` naming the field. An integer from
   * 1 to 100000; only on list fields (a single select is refused). Default 1000.
   */
  maxItems?: number;
}

/** One of `options` (or several with `hasMany`). */
export interface SelectFieldConfig extends BaseField, ListOptions {
  type: 'select';
  /** The allowed values; required, non-empty. */
  options: readonly string[];
  /** An array of options instead of one. Default false. */
  hasMany?: boolean;
}

/** The id of a record of `relationTo` (or several with `hasMany`); populated by `depth`/`include`. */
export interface RelationshipFieldConfig extends BaseField, ListOptions {
  type: 'relationship';
  /** Slug of the related collection; required. */
  relationTo: string;
  /** An array of ids instead of one. Default false. */
  hasMany?: boolean;
}

/** The id of a stored file (or several with `hasMany`). */
export interface UploadFieldConfig extends BaseField, ListOptions {
  type: 'upload';
  /** An array of file ids instead of one. Default false. */
  hasMany?: boolean;
}

/** An array of scalars. */
export interface ArrayFieldConfig extends BaseField, ListOptions {
  type: 'array';
  /** The type of each element. Default `text`. */
  of?: ArrayItemType;
}

/** Any JSON value; keys starting with `$` or containing `.` are refused. */
export interface JsonFieldConfig extends BaseField {
  type: 'json';
}

/** One field of a collection or global, discriminated by `type`. */
export type FieldConfig =
  | TextFieldConfig
  | NumberFieldConfig
  | BooleanFieldConfig
  | DateFieldConfig
  | SelectFieldConfig
  | RelationshipFieldConfig
  | UploadFieldConfig
  | ArrayFieldConfig
  | JsonFieldConfig;

export type Fields = Record<string, FieldConfig>;

/**
 * A key an `afterRead` hook adds to every record it returns (`wordCount`, `url`), declared so the OpenAPI
 * document and the generated types carry it. It is not stored: a write that sets it is a 400 like an unknown
 * field, and `where`, `sort`, `fields` and `search` cannot name it. The router does not check what the hook
 * returns; the declaration is the host's promise about it.
 */
export interface ComputedFieldConfig {
  /** The value's type (relationships and uploads cannot be computed: nothing would populate them). */
  type: Exclude<FieldType, 'relationship' | 'upload'>;
  /** The hook always sets it, never to null. Default false: it may be absent or null. */
  required?: boolean;
  /** `select`: the values it takes; required, non-empty. */
  options?: readonly string[];
  /** `select`: an array of options instead of one. Default false. */
  hasMany?: boolean;
  /** `array`: the type of each element. Default `text`. */
  of?: ArrayItemType;
  /** Said in the OpenAPI document and the generated types. Default: none. */
  description?: string;
}

/** What an access function receives. */
export interface AccessArgs {
  user: AuthUser | null;
  req?: Request;
  id?: string;
  data?: Record<string, unknown>;
  doc?: Record<string, unknown>;
}

/** A value a condition compares with: strings, numbers, booleans, dates (or ISO strings), null. */
export type WhereValue = string | number | boolean | Date | null;

/** The operators of one field's condition (docs/querying.md). */
export interface WhereOperators {
  eq?: WhereValue;
  neq?: WhereValue;
  gt?: WhereValue;
  gte?: WhereValue;
  lt?: WhereValue;
  lte?: WhereValue;
  in?: readonly WhereValue[];
  nin?: readonly WhereValue[];
  like?: string;
  nlike?: string;
  exists?: boolean;
  contains?: WhereValue;
  notContains?: WhereValue;
  any?: readonly WhereValue[];
  all?: readonly WhereValue[];
  between?: readonly [WhereValue, WhereValue];
}

/**
 * A where object in the list query language, e.g. `{ author: { eq: user.id } }` or
 * `{ or: [{ status: 'draft' }, { 'author.name': { like: 'ann' } }] }`. A bare value means `eq`;
 * several fields are ANDed; `and`/`or` (and `AND`/`OR`) hold arrays of nested wheres.
 */
export interface Where {
  and?: readonly Where[];
  or?: readonly Where[];
  AND?: readonly Where[];
  OR?: readonly Where[];
  [field: string]: WhereOperators | WhereValue | readonly Where[] | undefined;
}

/** true allows, false denies, a Where constrains what the user may touch. */
export type AccessResult = boolean | Where;
export type AccessFn = (args: AccessArgs) => AccessResult | Promise<AccessResult>;

export interface CollectionAccess {
  read?: AccessFn;
  create?: AccessFn;
  update?: AccessFn;
  delete?: AccessFn;
  /** With `versions.drafts`: publish, unpublish and schedule (and write the published record). Default: the `update` rule. */
  publish?: AccessFn;
  /** With `versions.drafts`: read working copies and make preview links. Default: the `update` rule. */
  readDrafts?: AccessFn;
  /** With `versions`: read the history (and, with `update`, restore from it). Default: the `update` rule. */
  readVersions?: AccessFn;
}

/**
 * A record's history and, with `drafts`, its working copy (docs/versions.md
 * describes the routes). `true` is `{}`: every default.
 */
export interface VersionsOptions {
  /** The newest versions kept per record; 0 keeps all. Default 50. The version matching the published state is always kept. */
  max?: number;
  /** Versions older than this are removed (a duration: `30d`, or seconds). Default: none. */
  maxAge?: string | number;
  /** A working copy beside the published record: draft, publish, unpublish, schedule, preview links. Default false. */
  drafts?: boolean;
  /** A draft save by the caller who made the previous version, within this long of it, replaces that version. Default `5m`. */
  coalesce?: string | number;
}

export interface CollectionConfig {
  /** URL segment and model name; lowercase letters, digits, `-` and `_`. */
  slug: string;
  fields: Fields;
  /**
   * Makes this an auth collection: adds email, password, name, role, verified (+ hidden token fields)
   * and the register/login/... routes (docs/auth.md). An object overrides the top-level `auth` options
   * for this collection. Default false.
   */
  auth?: boolean | CollectionAuthOptions;
  /** DELETE sets `deletedAt` instead of removing. Default false. */
  softDelete?: boolean;
  /** Caches GET list and GET by id responses (docs/cache.md). Default: no cache. */
  cache?: CacheOptions;
  /** Default: authenticated users may do everything, subject to API-key scopes. */
  access?: CollectionAccess;
  /** Fields `search=` looks in. Default: the collection's visible text, textarea and email fields. */
  search?: string[];
  /** Default `{ defaultLimit: 10, maxLimit: 100 }`. */
  pagination?: { defaultLimit?: number; maxLimit?: number };
  /** Largest batch create. Default 1000. */
  maxBatchSize?: number;
  /**
   * A PATCH or DELETE of one record without `If-Match` is a 428 `precondition_required`, so no client can
   * overwrite a change it has not seen (https://www.rfc-editor.org/rfc/rfc6585#section-3). Bulk writes then
   * need `If-Match: *`. The local API is not held to it. Default false.
   */
  requireIfMatch?: boolean;
  /**
   * The fields clients may sort on (visible top-level scalar fields, `createdAt`, `updatedAt`, `id`); each
   * gets an index `{ field: 1, _id: 1 }` (and `{ deletedAt: 1, field: 1, _id: 1 }` with softDelete), so the
   * sort is an index walk. A sort on any other field is a 400 `invalid_sort` listing these; `createdAt` (the
   * default sort) and `id` are always allowed. Default: any visible scalar field, with no index built for it
   * (the router logs one start-up warning per such collection).
   */
  sortable?: string[];
  /**
   * Compound indexes for filters used with a sort, e.g. `{ fields: { status: 1, publishedAt: -1 } }` for
   * `filter=status:published&sort=-publishedAt`. The router appends `_id` in the direction of the last key
   * (unless `id` is named), so keyset cursors walk the index. Default: none.
   */
  indexes?: CollectionIndex[];
  /** Lifecycle hooks: ordered lists of functions, each may be async (docs/hooks.md). Default: none. */
  hooks?: CollectionHooks;
  /**
   * How text sorts and compares: MongoDB's collation, applied to every query of the collection (sorts,
   * cursor pages, filters, counts, relation filters through it) and to every index the router builds for
   * it, so the indexes stay usable. `{ locale: 'fr' }` sorts `Élection` before `Zebra`. Default: none
   * (code-point order: `Zebra` before `apple` before `Élection`).
   */
  collation?: CollationOptions;
  /**
   * This collection fronts a MongoDB collection that already holds documents written by something else
   * (the host's own `users`): the router then builds no index on it unless `buildIndexes` says so, and its
   * records' `createdAt`/`updatedAt` may be null (documents written elsewhere may lack them), which the
   * OpenAPI document and generated types say. Default false.
   */
  existing?: boolean;
  /**
   * Whether `api.ready` builds the collection's indexes (docs/indexes.md). Default true, or false with
   * `existing`: on data the router does not own, the host decides when an index is built.
   */
  buildIndexes?: boolean;
  /** Keys the `afterRead` hooks add to records, by name (docs/hooks.md#computed-keys). Default: none. */
  computed?: Record<string, ComputedFieldConfig>;
  /** Keeps each record's history, and with `drafts` a working copy (docs/versions.md). Not on auth collections. Default false. */
  versions?: boolean | VersionsOptions;
}

/**
 * A MongoDB collation (https://www.mongodb.com/docs/manual/reference/collation/): `locale` (an ICU locale
 * such as `fr`, `en_US`, `de@collation=phonebook`, or `simple` for code-point order) and the options that tune it.
 */
export interface CollationOptions {
  locale: string;
  /** 1: base letters only (`e` = `É`); 2: and accents; 3 (default): and case; 4, 5: finer still. */
  strength?: 1 | 2 | 3 | 4 | 5;
  /** Case as its own level under strength 1 or 2. Default false. */
  caseLevel?: boolean;
  /** Which case sorts first at strength 3. Default `off` (the locale's order). */
  caseFirst?: 'upper' | 'lower' | 'off';
  /** Digits compared as numbers (`2` before `10`). Default false. */
  numericOrdering?: boolean;
  /** `shifted`: spaces and punctuation ignored at strengths 1 to 3. Default `non-ignorable`. */
  alternate?: 'non-ignorable' | 'shifted';
  /** With `shifted`: which characters are ignorable. Default `punct` (spaces and punctuation). */
  maxVariable?: 'punct' | 'space';
  /** Accents compared from the end of the string (French dictionary order). Default false. */
  backwards?: boolean;
  /** Unicode normalization before comparing. Default false. */
  normalization?: boolean;
}

/** One compound index of a collection (docs/indexes.md). */
export interface CollectionIndex {
  /** Field name -> 1 (ascending) or -1 (descending), in key order; at most 31 fields and one list field. */
  fields: Record<string, 1 | -1>;
}

export interface GlobalConfig {
  slug: string;
  fields: Fields;
  /** `read` for GET, `update` for POST/PATCH; `publish`, `readDrafts`, `readVersions` with `versions`. Defaults as for collections. */
  access?: { read?: AccessFn; update?: AccessFn; publish?: AccessFn; readDrafts?: AccessFn; readVersions?: AccessFn };
  /** `beforeChange`, `afterChange` and `afterRead` hooks (docs/hooks.md). Default: none. */
  hooks?: GlobalHooks;
  /** Keys the `afterRead` hooks add to the global, by name, as on collections. Default: none. */
  computed?: Record<string, ComputedFieldConfig>;
  /** A POST or PATCH without `If-Match` is a 428 `precondition_required`, as on collections. Default false. */
  requireIfMatch?: boolean;
  /** The global's history, and with `drafts` a working copy, as on collections. Default false. */
  versions?: boolean | VersionsOptions;
}

/** Response caching of one collection. */
export interface CacheOptions {
  /** Seconds a cached answer lives; required, > 0. */
  ttl: number;
  /** Most cached answers of this collection. Default 1000. */
  max?: number;
}

/** What a function endpoint (`endpoints: [(router, context) => ...]`) receives besides its router. */
export interface EndpointSetupContext {
  /** The router's logger (the config's `logger`, default console). */
  logger: Required<Logger>;
}

/**
 * A custom endpoint as a function: it registers routes on a fresh Express router whose paths are relative
 * to the mount path (`router.get('/posts/published', handler)`). Each route joins the route table; inside a
 * handler `req.context` holds the caller and the local API bound to the caller's access (docs/endpoints.md).
 * Paths are literal and `:param` segments, starting with a literal one; `router.use(fn)` without a path
 * runs before the routes.
 */
export type EndpointFunction = (router: Router, context: EndpointSetupContext) => void;

/** The HTTP methods a custom endpoint may answer. */
export type EndpointMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** A string property of an endpoint body. */
export interface EndpointStringProperty {
  type: 'string';
  description?: string;
  /** Fewest characters. Default: no bound. */
  minLength?: number;
  /** Most characters. Default: no bound. */
  maxLength?: number;
  /** The allowed values. Default: any string. */
  enum?: readonly string[];
}

/** A finite number property of an endpoint body (in multipart bodies, a decimal text). */
export interface EndpointNumberProperty {
  type: 'number';
  description?: string;
  /** Smallest value. Default: no bound. */
  minimum?: number;
  /** Largest value. Default: no bound. */
  maximum?: number;
  /** Whole numbers only. Default false. */
  integer?: boolean;
}

/** A boolean property of an endpoint body (in multipart bodies, the text `true` or `false`). */
export interface EndpointBooleanProperty {
  type: 'boolean';
  description?: string;
}

/**
 * An e-mail address property: cast as an `email` field's values are (trimmed, lower-cased, refused with
 * `invalid_email` when it is not an address), so the handler can look records up with it.
 */
export interface EndpointEmailProperty {
  type: 'email';
  description?: string;
}

/**
 * A date property: read as a `date` field's values are (ISO 8601 text of a day that exists, or epoch
 * milliseconds; `invalid_date` otherwise); the handler gets a Date.
 */
export interface EndpointDateProperty {
  type: 'date';
  description?: string;
}

/** A file property: the body is then multipart/form-data, and the handler gets an {@link EndpointFile}. */
export interface EndpointFileProperty {
  type: 'file';
  description?: string;
  /** Largest file in bytes; a bigger one is a 413. Default 10 MiB (10485760); at most 100 MiB. */
  maxSize?: number;
}

/** One property of an endpoint body schema, discriminated by `type`. */
export type EndpointBodyProperty =
  | EndpointStringProperty
  | EndpointNumberProperty
  | EndpointBooleanProperty
  | EndpointEmailProperty
  | EndpointDateProperty
  | EndpointFileProperty;

/** The body an endpoint accepts: an object of typed properties. Unknown properties are a 400. */
export interface EndpointBodySchema {
  /** Optional; an endpoint body is always an object. */
  type?: 'object';
  /** Property name -> type; names are letters, digits and `_`, starting with a letter. */
  properties: Record<string, EndpointBodyProperty>;
  /** Properties that must be present. Default: none. */
  required?: readonly string[];
}

/** An uploaded file as an endpoint handler receives it (held in memory, bounded by `maxSize`). */
export interface EndpointFile {
  /** The file name the client sent (untrusted). */
  originalName: string;
  /** The MIME type the client declared (untrusted). */
  mimeType: string;
  /** Size in bytes. */
  size: number;
  buffer: Buffer;
}

/** Request and response schemas of an object endpoint. */
export interface EndpointSchema {
  /**
   * Export name of the body's generated TypeScript interface (`ContactForm`), and its name in the OpenAPI
   * document. Required with `body`; a PascalCase identifier, unique among the generated type names.
   */
  name?: string;
  /** Validates the request body (400 naming each bad field) before the handler runs. */
  body?: EndpointBodySchema;
  /** A JSON Schema of the 200 answer, for the OpenAPI document only (not enforced). */
  response?: Record<string, unknown>;
}

/**
 * What an object endpoint's handler receives. `Body` is the body's type: annotate the handler with the
 * generated interface of its schema (`({ body }: EndpointHandlerArgs<ContactForm>) => ...`, docs/types.md).
 */
export interface EndpointHandlerArgs<Body = unknown> {
  /** The router's Mongoose connection. */
  db: Connection;
  /** The URL query, parsed with qs (`a[b]=1` -> `{ a: { b: '1' } }`). */
  query: Record<string, unknown>;
  /** The path parameters (`/posts/:id` -> `{ id }`). */
  params: Record<string, string>;
  /** With `schema.body`: the validated object (files as EndpointFile). Without: the parsed JSON on post/put/patch, else undefined. */
  body: Body;
  /** The authenticated caller, or null (also for an API key without the endpoint's scope: it acts as anonymous). */
  user: AuthUser | null;
  req: Request;
  res: Response;
}

/**
 * A custom endpoint declared as an object. The handler's return value is sent as JSON (status 200 unless
 * the handler set another); `undefined` answers 204, or nothing more when the handler already answered
 * through `res`. A thrown ContentError keeps its status (400-599); any other error is a 500 problem.
 */
export interface EndpointObject {
  /** Relative to the mount path; literal and `:param` segments, starting with a literal one (`/posts/:id/related`). */
  path: string;
  method: EndpointMethod;
  /** May be async. Declared as a method so a handler annotated with a narrower body type is accepted. */
  handler(args: EndpointHandlerArgs): unknown;
  /** Body and response schemas: the body is validated, both go into the OpenAPI document and the generated types. */
  schema?: EndpointSchema;
  /** OpenAPI metadata. Default summary `<METHOD> <path>`, default tags `["endpoints"]`. */
  detail?: { summary?: string; description?: string; tags?: string[] };
  /**
   * The API-key scope a request needs; a key without it acts as an anonymous caller (`user` null, and
   * `req.context` bound to nobody). Default: `read` for `get` (and HEAD), `write` for every other method.
   * Access tokens and host users carry no scopes and are never restricted by it.
   */
  scope?: Scope;
  /**
   * Whether the handler may act where the router cannot see it (sends a mail, calls a payment service).
   * true (the default): a success with an `Idempotency-Key` is always kept and replayed, so a retry never
   * acts twice. false: the endpoint declares that it writes only through the router (`req.context`,
   * `api.local`) or `db`, so an answer is kept only when the request did write: a repeat of a request that
   * wrote nothing (a search sent as a POST) runs again and keeps nothing. Default true.
   */
  sideEffects?: boolean;
}

/** File uploads stored in GridFS. */
export interface UploadOptions {
  /** GridFS bucket name. Default `uploads`. */
  bucket?: string;
  /** Largest file in bytes. Default 10 MiB. */
  maxFileSize?: number;
  /** Accepted MIME types; wildcards like `image/*`. Default: any. */
  allowedMimeTypes?: string[];
  /** Who may upload, read and delete files. Default: authenticated users upload and delete, anyone reads. */
  access?: { create?: AccessFn; read?: AccessFn; delete?: AccessFn };
  /**
   * Seconds browsers and caches may reuse a served file without asking again (`max-age`), 0 to 31536000.
   * Stored names are never reused, so a file's bytes never change; but a deleted file, or a read rule
   * changed since, is seen by a cache only once this runs out. Default: none (`no-cache`, revalidated on
   * every use). Files whose reads need credentials (`access.read`) stay `private`.
   */
  maxAge?: number;
  /** With `maxAge`: adds `immutable`, so browsers do not revalidate a file on reload either. Default false. */
  immutable?: boolean;
}

/** `security`: request rate limiting, and the origins trusted to write with the host's session. */
export interface SecurityOptions {
  /** Limits requests per client; off when absent. */
  rateLimit?: RateLimitOptions;
  /**
   * Origins (`scheme://host[:port]`, exactly as browsers send them in `Origin`) whose pages may make
   * unsafe requests (POST, PUT, PATCH, DELETE) on behalf of the host's session user (`req.user`): a
   * browser request from any other site carrying the session cookie is a 403 `cross_origin_request`
   * (docs/auth.md). The router's own origin needs no entry. Default: none.
   */
  trustedOrigins?: string[];
}

/** Request rate limiting (docs/rate-limit.md). */
export interface RateLimitOptions {
  /** Window length in milliseconds. Default 60000. */
  windowMs?: number;
  /** Requests per client per window, on every route the router serves. Default 100. */
  max?: number;
  /** Where counts live: this process, or the router's database (shared by every instance). Default `memory`. */
  store?: 'memory' | 'mongo';
  /**
   * The client key, used by both limits. Default: the client IP as Express sees it (`req.ip`, IPv6 grouped
   * by /56); behind a proxy set the host app's `trust proxy`, or every client shares the proxy's count.
   */
  keyBy?: (req: Request) => string;
  /** The stricter limit of login, register, forgot-password and reset-password. */
  auth?: RateLimitAuthOptions;
}

/** The limit of the credential routes: per client and account, and per client over all accounts. */
export interface RateLimitAuthOptions {
  /** Window length in milliseconds. Default 900000 (15 minutes). */
  windowMs?: number;
  /** Requests per client and e-mail address per window. Default 10. */
  max?: number;
  /** Requests per client per window, whatever the address (a bound on trying many accounts). Default 5 × max. */
  maxPerClient?: number;
}

/** Realtime change events over Server-Sent Events and WebSocket. */
export interface RealtimeOptions {
  /** Milliseconds between heartbeats. Default 25000. */
  heartbeatMs?: number;
  /** Events buffered for a client that does not read before it is dropped. Default 1000. */
  maxBufferedEvents?: number;
  /** Most collections one client may subscribe to. Default 50. */
  maxSubscriptions?: number;
  /**
   * Milliseconds between re-checks of each client's credential and read access: an expired or revoked
   * credential ends the subscription. Changes to the client's own user record trigger a re-check at once.
   * Default 30000.
   */
  credentialCheckMs?: number;
  /** Events kept in memory for clients resuming with `Last-Event-ID`. Default 1000. */
  replayEvents?: number;
  /**
   * Open connections (SSE streams and WebSockets together) one client may hold; more are refused with a 429.
   * A client is its authenticated user, else its IP address. Default 50.
   */
  maxConnectionsPerClient?: number;
}

/** Idempotent retries with the `Idempotency-Key` header (docs/writes.md). */
export interface IdempotencyOptions {
  /**
   * How long a completed request's answer is kept for replay: a duration (`'24h'`, `'30m'`, `'7d'`) or a
   * number of seconds. A repeat after it runs as a new request. Default `'24h'`.
   */
  ttl?: string | number;
  /**
   * The largest answer body kept for a replay, in bytes, from 0 (keep keys only) to 15 MiB. A larger answer is
   * sent, and its key kept without it: a repeat is a 422, never a second run. Default 1 MiB.
   */
  maxAnswerBytes?: number;
  /**
   * How many keys one caller (a user, an API key's scopes, an anonymous client address) may hold within the
   * TTL. A request with a new key beyond them is a 429 `idempotency_quota_exceeded` before it runs. Default 1000.
   */
  maxKeysPerCaller?: number;
}

/** Who may read the audit log (`GET /audit`, `GET /<slug>/:id/audit`, `GET /audit/export`). */
export type AuditReadRule = (args: { user: AuthUser | null; req?: Request }) => AccessResult | Promise<AccessResult>;

/**
 * The audit log (docs/audit.md): one entry per stored change, account event, webhook retry and refused write,
 * kept in `content-router.audit`. Entries name who, what, which record, which fields, the outcome and the
 * request; never a value.
 */
export interface AuditOptions {
  /** The collections and globals whose changes are recorded, by slug (`_uploads`: files); `'*'`: all. Default `'*'`. */
  collections?: '*' | string[];
  /**
   * How long entries are kept: a duration (`'90d'`, `'52w'`) or a number of seconds, enforced by a TTL index on
   * `at`; `0` keeps every entry. Default `'90d'`.
   */
  retention?: string | number;
  /**
   * Receives each entry once it is stored (a SIEM, a file, a log pipeline). Never awaited by a write: each call
   * is bounded to 5 s, and a failure or timeout is logged (once per burst), never the write's.
   */
  sink?: (entry: AuditEntry) => void | Promise<void>;
  access?: {
    /**
     * Who may read entries: `true`, `false` or a where on the entries (`{ 'actor.id': { equals: user.id } }`).
     * Default: role `admin`, and with an API key, one carrying the `admin` scope. Anonymous callers a rule
     * refuses get a 401, others a 403.
     */
    read?: AuditReadRule;
  };
}

/**
 * Webhooks: signed, retried, persisted deliveries of record changes to the host's receivers, following
 * Standard Webhooks (https://www.standardwebhooks.com/). The source is the MongoDB change stream, so writes
 * from every instance, the local API and other processes are delivered (docs/webhooks.md).
 */
export interface WebhooksOptions {
  /** The receivers. Each URL at most once. */
  endpoints: WebhookEndpoint[];
  /** When a failed attempt is tried again. */
  retry?: WebhookRetryOptions;
  /** How long one attempt may take, in ms, from 100 to 300000; a slower answer is a failed attempt. Default 10000. */
  timeoutMs?: number;
  /**
   * How long deliveries stay in the delivery log (`GET /webhooks/deliveries`), from their creation: a duration
   * (`'30d'`, `'12h'`) or a number of seconds; it must outlast the retry schedule. Default `'30d'`.
   */
  retention?: string | number;
}

/** One receiver of webhooks. */
export interface WebhookEndpoint {
  /** Where deliveries are POSTed: an `http:` or `https:` URL. Redirects are not followed. */
  url: string;
  /**
   * The signing secret, `whsec_` followed by the base64 of at least 24 random bytes
   * (https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md#signature-scheme).
   * Read it from the environment.
   */
  secret: string;
  /** What it receives: `'<slug>.create'`, `'<slug>.update'`, `'<slug>.delete'`, `'<slug>.*'` or `'*'` (every collection). */
  events: string[];
  /**
   * Only records that match this, after the change (the list query's `where` dialect, no hidden fields).
   * A delete has no record after it: an endpoint with a `where` receives no delete events.
   */
  where?: Where;
  /** Extra request headers (an `Authorization` for the receiver's gateway); not `webhook-*`, `content-type` and the like. */
  headers?: Record<string, string>;
  /**
   * How `data.doc` (and `data.updatedFields`) are rendered. Default: as server code reads the record (access
   * overridden): hidden fields out, but every field that field access hides from some callers in.
   */
  view?: WebhookView;
}

/** An endpoint's view of the records it receives: that of a given caller, only some fields, or both. */
export interface WebhookView {
  /**
   * Render the record as REST renders it for this caller: its field `read` rules decide which fields are in,
   * and the read hooks run with it as `user`. It does not decide which records are sent (`events` and
   * `where` do).
   */
  user?: AuthUser;
  /** Only these fields (and `id`), as a list's `fields` parameter selects them; each a visible field of every collection the endpoint receives. */
  fields?: string[];
}

/** The retry schedule of failed deliveries. */
export interface WebhookRetryOptions {
  /**
   * Waits, in ms, before each retry: the first after the first failed attempt, and so on; when they run out
   * the delivery is `failed`. Each is varied by up to 20 % so retries of many deliveries spread out. `[]`: one
   * attempt only. At most 20 values, each from 1 ms to 7 days.
   * Default 5 s, 30 s, 2 min, 10 min, 1 h, 6 h, 24 h (eight attempts over about 31 hours).
   */
  delays?: number[];
}

/** The OpenAPI document and Swagger UI. */
export interface DocsOptions {
  /** Serve `/docs` and `/docs/openapi.json` without credentials. Default true. */
  public?: boolean;
  /**
   * How the host's own auth (the `req.user` it sets: a session cookie, Basic, its own tokens) takes
   * credentials, as OpenAPI security schemes by name (`{ session: { type: 'apiKey', in: 'cookie', name:
   * 'connect.sid' } }`). The document lists them beside the router's own, every operation that takes a
   * caller accepts them, and a 401's `WWW-Authenticate` challenges with them (docs/openapi.md#your-own-auth).
   * Default: none.
   */
  securitySchemes?: Record<string, SecurityScheme>;
  /**
   * The ways the host's schemes are presented, each a requirement of every scheme it names (a session
   * cookie and a CSRF header: `[{ session: [], csrf: [] }]`), as OpenAPI security requirements. Only
   * names of `securitySchemes`. Default: each scheme on its own.
   */
  security?: Array<Record<string, string[]>>;
  /**
   * Serve each caller a document of what it may reach: operations its access rules refuse outright are left
   * out, and so are fields it may not read (docs/openapi.md#per-caller-documents). Built once per distinct
   * set of rights and kept. Default false: one document of the whole API, the same for every caller.
   */
  perCaller?: boolean;
}

/** The MCP endpoint (docs/mcp.md). */
export interface McpOptions {
  /**
   * Offer the write tools (`create`, `update`, `delete`, and `saveDraft`/`publish` on drafts collections) to
   * callers whose access rules let them write. Default false: the read tools only.
   */
  write?: boolean;
  /**
   * Hostnames the `Host` header may name (DNS rebinding protection for a server reachable as `localhost`):
   * any other is a 403. Default: any host.
   */
  allowedHosts?: string[];
  /**
   * Hostnames a browser's `Origin` may name; a request without `Origin` (a desktop agent, a server) is not
   * checked. Default: the hostnames of `security.trustedOrigins`; any other origin is a 403.
   */
  allowedOrigins?: string[];
}

/** An OAuth 2 flow of an `oauth2` security scheme (OpenAPI 3.1). */
export interface SecuritySchemeFlow {
  /** `implicit` and `authorizationCode`. */
  authorizationUrl?: string;
  /** `password`, `clientCredentials` and `authorizationCode`. */
  tokenUrl?: string;
  refreshUrl?: string;
  /** Scope name -> what it allows. */
  scopes: Record<string, string>;
}

/**
 * An OpenAPI 3.1 security scheme of the host's own auth. `x-www-authenticate` spells the challenge a 401
 * sends for it (`'Basic realm="staff"'`); without it: the `http` scheme's name, `Bearer` for `oauth2` and
 * `openIdConnect`, and the scheme's own name for the others, which HTTP has no scheme for.
 */
export type SecurityScheme = (
  | { type: 'apiKey'; name: string; in: 'header' | 'query' | 'cookie' }
  | { type: 'http'; scheme: string; bearerFormat?: string }
  | { type: 'oauth2'; flows: Partial<Record<'implicit' | 'password' | 'clientCredentials' | 'authorizationCode', SecuritySchemeFlow>> }
  | { type: 'openIdConnect'; openIdConnectUrl: string }
  | { type: 'mutualTLS' }
) & {
  description?: string;
  'x-www-authenticate'?: string;
  /** Other specification extensions, copied into the document as they are. */
  [extension: `x-${string}`]: unknown;
};

/** Where the router reports errors it swallowed (5xx), warnings, notices and client events (debug). */
export interface Logger {
  error: (...args: unknown[]) => void;
  warn: (...args: unknown[]) => void;
  info?: (...args: unknown[]) => void;
  /** Client events worth a trace only, such as a client closing the connection mid-request. */
  debug?: (...args: unknown[]) => void;
}

/** Advice the router logs through `logger.warn` when it starts. */
export interface WarningOptions {
  /**
   * One list of the sorts clients may ask for that no index serves (docs/indexes.md), once per router.
   * Default: on, except when NODE_ENV is `test`.
   */
  unindexedSorts?: boolean;
}

/** One e-mail the router asks the host's `email.send` to deliver. */
export interface EmailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

/** Password rules, enforced on every password write: register, reset, and admin/local creates and updates. */
export interface PasswordPolicy {
  /** Fewest characters. Default 8 (the hard maximum is 1024). */
  minLength?: number;
  /** At least one uppercase letter. Default false. */
  requireUppercase?: boolean;
  /** At least one digit. Default false. */
  requireNumbers?: boolean;
  /** At least one character that is neither a letter, a digit nor whitespace. Default false. */
  requireSymbols?: boolean;
}

/** scrypt parameters for new password hashes; stored hashes carry their own, so changing these is safe. */
export interface PasswordHashOptions {
  /** scrypt N, a power of two. Default 32768 (2^15: 32 MiB and about 100 ms per hash on a small 2-core machine). */
  cost?: number;
  /** scrypt r. Default 8. */
  blockSize?: number;
  /** scrypt p. Default 1. */
  parallelization?: number;
}

/** Auth options a single auth collection may override (`auth: { requireVerification: true }`). */
export interface CollectionAuthOptions {
  /** Access-token lifetime, a duration ("15m", "1h") or seconds. Default `15m`. */
  jwtExpiry?: string | number;
  /** Refresh-token lifetime. Default `30d`. */
  refreshExpiry?: string | number;
  /** Password-reset token lifetime. Default `1h`. */
  resetExpiry?: string | number;
  /** E-mail verification token lifetime. Default `24h`. */
  verificationExpiry?: string | number;
  /** Login is refused (403 `email_not_verified`) until the address is verified. Default false. */
  requireVerification?: boolean;
  /**
   * Whether anyone may call `POST /<slug>/register`. Default true. With false the route answers 403
   * `registration_closed`; admins still create users (POST /<slug>) and server code calls api.auth.register.
   */
  allowRegistration?: boolean;
  /** Failed logins (per e-mail) before the account is locked; 0 disables locking. Default 5. */
  maxLoginAttempts?: number;
  /** How long a lock lasts, and how long failures are remembered. Default `15m`. */
  lockTime?: string | number;
  /** Password rules. Default `{ minLength: 8 }`, no composition rules. */
  password?: PasswordPolicy;
  /** Link put in reset e-mails; `{token}` is replaced by the token. Default: the mail carries the bare token. */
  resetPasswordUrl?: string;
  /** Link put in verification e-mails; `{token}` is replaced by the token. Default: the bare token. */
  verifyEmailUrl?: string;
  /**
   * A password reset also deletes the user's API keys (a reset usually means the account was at risk).
   * Default false: keys are credentials of their own, and revoking them may stop a running integration.
   */
  revokeApiKeysOnReset?: boolean;
}

/** Top-level auth options; they apply to every auth collection unless the collection overrides them. */
export interface AuthOptions extends CollectionAuthOptions {
  /** HS256 signing secret, at least 32 characters; required when any collection has `auth`. Read it from the environment. */
  jwtSecret?: string;
  /** `iss` claim set on and required of access tokens. Default: none. */
  issuer?: string;
  /** `aud` claim set on and required of access tokens. Default: none. */
  audience?: string;
  /** scrypt cost of new password hashes. Default `{ cost: 32768, blockSize: 8, parallelization: 1 }`. */
  passwordHash?: PasswordHashOptions;
  /**
   * Seconds the user behind a token or API key is reused without a database read. Writes through this
   * router take effect at once; writes from elsewhere (another instance) after at most this long.
   * 0 reads the user on every request. Default 10.
   */
  userCacheTtl?: number;
  /**
   * Maps a host-set `req.user` to an AuthUser; used only when the request presents no credential of the
   * package's own (docs/auth.md). Default: `req.user` with `id` from `id` or `_id`.
   */
  fromRequest?: (req: Request) => AuthUser | null | undefined;
}

export interface ContentConfig {
  core?: {
    api?: {
      /** Where the host mounts the router. Default `/api`. Informational: the router works at any path. */
      prefix?: string;
      /** Envelope when the request names no dialect. Default `data`. */
      listFormat?: 'data' | 'docs';
      /** Largest JSON body. Default `1mb`. */
      bodyLimit?: string | number;
      /** Deepest population `depth` allows. Default 2. */
      maxDepth?: number;
      /** Above maxLimit a page size is a 400 (`reject`, default) or clamped (`clamp`). */
      overLimit?: 'reject' | 'clamp';
      /**
       * Most relation conditions (dotted paths through a relationship, `author.name`) one list request's
       * `where` and `filter` may hold together; each runs a query on the related collection. 0 turns
       * relation filters off. More is a 400 `query_too_complex`. Default 10.
       */
      maxRelationConditions?: number;
      /**
       * Most relationship hops in one dotted path (`author.company.name` is 2), from 1 to 10; each hop
       * is one more query. Population depth is `maxDepth`. More is a 400 `query_too_complex`. Default 3.
       */
      maxRelationDepth?: number;
      /**
       * Most related records one relation condition may match: their ids are sent back to MongoDB in the
       * filter, which must stay under its 16 MB command limit. More is a 400 `query_too_complex` asking to
       * narrow the filter (never a silently truncated result). At most 500,000 / maxRelationConditions. Default 10,000.
       */
      maxRelationIds?: number;
      /**
       * Most records one bulk `PATCH /<slug>?where=` or `DELETE /<slug>?where=` may write; a where that
       * matches more is a 400 `too_many_matches` and writes nothing. From 1 to 100,000. Default 1000.
       */
      maxBulk?: number;
    };
  };
  /** The router uses `connection` when given (the host's), else opens its own from `uri`. */
  db: ({ connection: Connection; uri?: never } | { uri: string; connection?: never; options?: Record<string, unknown> }) & {
    /**
     * Longest wait, in ms, for a request that needs the database before it is answered 503 `database_timeout`
     * (uploads excepted: they stream at the client's pace). `false`: no deadline. Default 30000.
     */
    requestTimeoutMS?: number | false;
  };
  collections?: CollectionConfig[];
  globals?: GlobalConfig[];
  auth?: AuthOptions;
  /** Security options: rate limiting (docs/rate-limit.md). */
  security?: SecurityOptions;
  /** File uploads in GridFS: `POST /upload`, `GET /uploads/:filename` (docs/uploads.md). `{}` for the defaults. */
  uploads?: UploadOptions;
  /** Realtime events over `/sse` and `/ws` (docs/realtime.md). Default false. */
  realtime?: boolean | RealtimeOptions;
  /**
   * `Idempotency-Key` on `POST /<slug>`, `POST /upload` and object endpoints taking POST or PATCH: a retried
   * request gets the first one's stored answer instead of writing again (docs/writes.md). Default on, keys kept
   * 24 h (`true` is the same); `false` turns it off (the header is then ignored, as by a server that does not know it).
   */
  idempotency?: boolean | IdempotencyOptions;
  /** Signed, retried deliveries of record changes to the host's receivers (docs/webhooks.md). Default none. */
  webhooks?: WebhooksOptions;
  /** The audit log: who did what, to which record, when, with what outcome (docs/audit.md). Default off. */
  audit?: AuditOptions;
  /** The OpenAPI document (`/docs/openapi.json`) and Swagger UI (`/docs`); `false` serves neither. Default on and public. */
  docs?: boolean | DocsOptions;
  /**
   * The Model Context Protocol at `<prefix>/mcp`, so agents read (and with `write: true` write) content with
   * the same credentials and access rules as REST (docs/mcp.md). Default off; `true` is `{ write: false }`.
   */
  mcp?: boolean | McpOptions;
  /** Custom endpoints, functions or objects (docs/endpoints.md). Default none. */
  endpoints?: Array<EndpointFunction | EndpointObject>;
  email?: {
    /**
     * Delivers one e-mail (password reset, address verification). Default: logs through `logger.info`
     * that a mail would be sent; the token/link is logged only when NODE_ENV is `development`.
     */
    send?: (mail: EmailMessage) => Promise<void> | void;
  };
  /** Where the router reports errors it swallowed (5xx) and warnings. Default: console. */
  logger?: Logger;
  /** Which start-up advice the router logs (`{ unindexedSorts: false }` silences the sort list). Default: all, except under NODE_ENV=test. */
  warnings?: WarningOptions;
  /**
   * Where the router reads the current time, `{ now(): Date }`, for every time-based decision: access-token
   * `iat`/`exp` and their check, refresh-token, reset and verification expiries, login lockouts, API key
   * expiry and `lastUsedAt`, Idempotency-Key TTLs and leases, webhook schedules, leases and retention, the
   * MongoDB rate-limit store's windows, realtime credential re-checks, record timestamps. Default the system
   * clock. A test moves a clock of its own instead of waiting; timers that only schedule work stay real.
   */
  clock?: Clock;
}
