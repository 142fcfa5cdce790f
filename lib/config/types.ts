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

export interface FieldConfig {
  type: FieldType;
  /** Default false. A missing value is a 400 on create. */
  required?: boolean;
  /** Default false. Becomes a unique index; a duplicate value is a 409 naming the field. */
  unique?: boolean;
  /** Default false. Never returned, filtered, sorted, selected or searched by clients. */
  hidden?: boolean;
  /** A value, or a function returning one, used when create omits the field. */
  default?: unknown;
  /** `select`: the allowed values. */
  options?: readonly string[];
  /** `select`, `relationship`, `upload`: many values instead of one. Default false. */
  hasMany?: boolean;
  /** `relationship`: the slug of the related collection. */
  relationTo?: string;
  /** `array`: the type of each element. Default `text`. */
  of?: ArrayItemType;
  /** `text`/`textarea`: length bounds. `number`: value bounds via min/max. */
  minLength?: number;
  maxLength?: number;
  min?: number;
  max?: number;
  /** Adds a (non-unique) index. Default false. */
  index?: boolean;
}

export type Fields = Record<string, FieldConfig>;

/** What an access function receives. */
export interface AccessArgs {
  user: AuthUser | null;
  req?: Request;
  id?: string;
  data?: Record<string, unknown>;
  doc?: Record<string, unknown>;
}

/** A where object in the query dialect (DESIGN §4), e.g. `{ author: { eq: user.id } }`. */
export type Where = Record<string, unknown>;

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
  /** Caches GET responses for `ttl` seconds. */
  cache?: { ttl: number };
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

/** The context a Form B endpoint's handler sees on `req.context`. */
export type EndpointFunction = (router: Router, ctx: unknown) => void;

export interface EndpointObject {
  path: string;
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  handler: (args: Record<string, unknown>) => unknown;
  schema?: Record<string, unknown>;
  detail?: Record<string, unknown>;
}

/** One e-mail the router asks the host's `email.send` to deliver. */
export interface EmailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

/** Password rules (SPEC §5.7), enforced on every password write: register, reset, and admin/local creates and updates. */
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
  security?: { rateLimit?: Record<string, unknown> };
  uploads?: Record<string, unknown>;
  realtime?: boolean | Record<string, unknown>;
  endpoints?: Array<EndpointFunction | EndpointObject>;
  email?: {
    /**
     * Delivers one e-mail (password reset, address verification). Default: logs through `logger.info`
     * that a mail would be sent; the token/link is logged only when NODE_ENV is `development`.
     */
    send?: (mail: EmailMessage) => Promise<void> | void;
  };
  /** Where the router reports errors it swallowed (5xx) and warnings. Default: console. */
  logger?: { error: (...args: unknown[]) => void; warn: (...args: unknown[]) => void; info?: (...args: unknown[]) => void };
}
