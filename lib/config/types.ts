// Public configuration types: the one object a host passes to contentRouter().
// Every default is stated in JSDoc; resolve-config.ts turns this into a complete, frozen internal config.
import type { Connection } from 'mongoose';
import type { Request, Router } from 'express';

/** A scope an API key may carry. JWT/session users carry none and are unrestricted by scopes. */
export type Scope = 'read' | 'write' | 'admin';

/** The authenticated user as access functions and handlers see it, or null when anonymous. */
export interface AuthUser {
  id: string;
  email?: string;
  role?: string;
  /** Present only for API-key requests. */
  scopes?: Scope[];
  /** Slug of the auth collection the user belongs to, when the package authenticated it. */
  collection?: string;
  [key: string]: unknown;
}

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

/** One of `options` (or several with `hasMany`). */
export interface SelectFieldConfig extends BaseField {
  type: 'select';
  /** The allowed values; required, non-empty. */
  options: readonly string[];
  /** An array of options instead of one. Default false. */
  hasMany?: boolean;
}

/** The id of a record of `relationTo` (or several with `hasMany`); populated by `depth`/`include`. */
export interface RelationshipFieldConfig extends BaseField {
  type: 'relationship';
  /** Slug of the related collection; required. */
  relationTo: string;
  /** An array of ids instead of one. Default false. */
  hasMany?: boolean;
}

/** The id of a stored file (or several with `hasMany`). */
export interface UploadFieldConfig extends BaseField {
  type: 'upload';
  /** An array of file ids instead of one. Default false. */
  hasMany?: boolean;
}

/** An array of scalars. */
export interface ArrayFieldConfig extends BaseField {
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
  /** Caches GET list and GET by id responses (not supported yet: a ConfigError until the cache lands). */
  cache?: CacheOptions;
  /** Default: authenticated users may do everything, subject to API-key scopes. */
  access?: CollectionAccess;
  /** Fields `search=` looks in. Default: the collection's visible text, textarea and email fields. */
  search?: string[];
  /** Default `{ defaultLimit: 10, maxLimit: 100 }`. */
  pagination?: { defaultLimit?: number; maxLimit?: number };
  /** Largest batch create. Default 1000. */
  maxBatchSize?: number;
}

export interface GlobalConfig {
  slug: string;
  fields: Fields;
  /** `read` for GET, `update` for POST/PATCH. Defaults as for collections. */
  access?: { read?: AccessFn; update?: AccessFn };
}

/** Response caching of one collection. */
export interface CacheOptions {
  /** Seconds a cached answer lives; required, > 0. */
  ttl: number;
  /** Most cached answers of this collection. Default 1000. */
  max?: number;
}

/** A custom endpoint registered as a function given a router scoped under the mount path. */
export type EndpointFunction = (router: Router, context: { logger: Logger }) => void;

/** A custom endpoint declared as an object; its handler's return value is sent as JSON. */
export interface EndpointObject {
  path: string;
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  handler: (args: Record<string, unknown>) => unknown;
  /** Body and response schemas: the body is validated, both go into the OpenAPI document. */
  schema?: Record<string, unknown>;
  /** OpenAPI summary, description and tags. */
  detail?: { summary?: string; description?: string; tags?: string[] };
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
}

/** Request rate limiting. */
export interface RateLimitOptions {
  /** Window length in milliseconds. Default 60000. */
  windowMs?: number;
  /** Requests per client per window. Default 100. */
  max?: number;
  /** Where counts live: this process, or the router's database (shared by every instance). Default `memory`. */
  store?: 'memory' | 'mongo';
  /** The client key. Default: the client IP as Express sees it (set `trust proxy` behind a proxy). */
  keyBy?: (req: Request) => string;
  /** The stricter limit of login, register, forgot-password and reset-password. */
  auth?: { windowMs?: number; max?: number };
}

/** Realtime change events over Server-Sent Events and WebSocket. */
export interface RealtimeOptions {
  /** Milliseconds between heartbeats. Default 25000. */
  heartbeatMs?: number;
  /** Events buffered for a client that does not read before it is dropped. Default 1000. */
  maxBufferedEvents?: number;
  /** Most collections one client may subscribe to. Default 50. */
  maxSubscriptions?: number;
}

/** The OpenAPI document and Swagger UI. */
export interface DocsOptions {
  /** Serve `/docs` and `/docs/openapi.json` without credentials. Default true. */
  public?: boolean;
}

/** Where the router reports errors it swallowed (5xx), warnings and notices. */
export interface Logger {
  error: (...args: unknown[]) => void;
  warn: (...args: unknown[]) => void;
  info?: (...args: unknown[]) => void;
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
    };
  };
  /** The router uses `connection` when given (the host's), else opens its own from `uri`. */
  db: { connection: Connection; uri?: never } | { uri: string; connection?: never; options?: Record<string, unknown> };
  collections?: CollectionConfig[];
  globals?: GlobalConfig[];
  auth?: AuthOptions;
  /** Rate limiting (not supported yet: a ConfigError until it lands). */
  security?: { rateLimit?: RateLimitOptions };
  /** File uploads (not supported yet: a ConfigError until they land). */
  uploads?: UploadOptions;
  /** Realtime events (not supported yet: a ConfigError until they land). Default false. */
  realtime?: boolean | RealtimeOptions;
  /** The OpenAPI document (`/docs/openapi.json`) and Swagger UI (`/docs`); `false` serves neither. Default on and public. */
  docs?: false | DocsOptions;
  /** Custom endpoints (not supported yet: a ConfigError until they land). */
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
}
