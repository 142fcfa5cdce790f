// Turns the host's ContentConfig into the complete, frozen internal config the router runs on.
// Validation happens here, once, when contentRouter() is called, together with each feature's options
// parser; nothing is re-derived per request, and nothing reads the host's config after this.
import type { Request } from 'express';
import { ConfigError } from '../errors';
import { type Clock, systemClock } from '../util/clock';
import { authChallenge } from './auth-challenge';
import { defaultHostUser, mappedHostUser } from './host-user';
import type { AuthUser, CollectionConfig, ContentConfig, GlobalConfig, Logger, WarningOptions } from './types';
import { type OptionsOwner, RELATION_LIMIT_DEFAULTS, parseConfig } from './validate-config';

export type { OptionsOwner, OptionsParser, ParsedOptions } from './validate-config';

/** Knobs the query parser needs beyond the schema; resolved from `core.api` once. */
export interface QueryOptions {
  /** Envelope when the request names no dialect. */
  readonly listFormat: 'data' | 'docs';
  /** Deepest `depth` allowed. */
  readonly maxDepth: number;
  /** Over maxLimit: 400 or clamp. */
  readonly overLimit: 'reject' | 'clamp';
  /** Most relation conditions (dotted paths such as `author.name`) in one request's where and filter. */
  readonly maxRelationConditions: number;
  /** Most relationship hops in one dotted path (`author.company.name` is 2). */
  readonly maxRelationDepth: number;
  /** Most ids one relation condition may match before the request is a 400. */
  readonly maxRelationIds: number;
}

export interface ResolvedConfig {
  /** How the router reaches its database (read once, to open or adopt the connection). */
  readonly db: ContentConfig['db'];
  readonly prefix: string;
  readonly bodyLimit: string | number;
  /** Longest wait for a database route before a 503 `database_timeout`; false: none. */
  readonly requestTimeoutMS: number | false;
  readonly query: QueryOptions;
  /** Most records one bulk write by where may write. */
  readonly maxBulk: number;
  readonly collections: readonly CollectionConfig[];
  readonly globals: readonly GlobalConfig[];
  readonly fromRequest: (req: Request) => AuthUser | null;
  /** The host's logger with every level present. */
  readonly logger: Required<Logger>;
  /** Which start-up advice is logged, defaults applied. */
  readonly warnings: Readonly<Required<WarningOptions>>;
  /** `security.trustedOrigins`: origins whose pages may write on behalf of the host's session. */
  readonly trustedOrigins: ReadonlySet<string>;
  /** `security.rateLimit.keyBy`: how the host tells clients apart (the rate limit, an anonymous caller's Idempotency-Key scope); undefined: by address. */
  readonly clientKeyBy: ((req: Request) => string) | undefined;
  /** The `WWW-Authenticate` challenge of the router's 401s (auth-challenge.ts); undefined when it knows no way to authenticate. */
  readonly authChallenge: string | undefined;
  /** The current time of every time-based decision (`clock`, default the system clock). */
  readonly clock: Clock;
  /** Each feature's options as its parser resolved them, by feature name (absent for a feature without options). */
  readonly features: ReadonlyMap<string, unknown>;
}

/** Default mapping of a host-set `req.user` (host-user.ts): plain, with a string `id`, without secrets. */
function userFromRequest(req: Request): AuthUser | null {
  return defaultHostUser((req as Request & { user?: unknown }).user);
}

/**
 * Validates and completes the config, each feature's options with it (one parser per feature, one pass);
 * throws one ConfigError naming every problem.
 */
export function resolveConfig(config: ContentConfig, features: readonly OptionsOwner[] = []): ResolvedConfig {
  const parsed = parseConfig(config, features);
  if (parsed.problems.length) throw new ConfigError(parsed.problems);

  const api = config.core?.api ?? {};
  const hostMapper = config.auth?.fromRequest;
  const fromRequest = hostMapper
    ? (req: Request) => mappedHostUser(hostMapper(req))
    : userFromRequest;
  const logger = config.logger ?? console;

  return Object.freeze({
    db: config.db,
    prefix: api.prefix ?? '/api',
    bodyLimit: api.bodyLimit ?? '1mb',
    requestTimeoutMS: config.db.requestTimeoutMS ?? 30_000,
    maxBulk: api.maxBulk ?? 1000,
    query: Object.freeze({
      listFormat: api.listFormat ?? 'data',
      maxDepth: api.maxDepth ?? 2,
      overLimit: api.overLimit ?? 'reject',
      maxRelationConditions: api.maxRelationConditions ?? RELATION_LIMIT_DEFAULTS.maxRelationConditions,
      maxRelationDepth: api.maxRelationDepth ?? RELATION_LIMIT_DEFAULTS.maxRelationDepth,
      maxRelationIds: api.maxRelationIds ?? RELATION_LIMIT_DEFAULTS.maxRelationIds,
    }),
    collections: Object.freeze([...(config.collections ?? [])]),
    globals: Object.freeze([...(config.globals ?? [])]),
    fromRequest,
    logger: {
      error: logger.error.bind(logger),
      warn: logger.warn.bind(logger),
      info: (logger.info ?? (() => undefined)).bind(logger),
      // Only a host's own logger gets debug lines: console's default would print every client that hangs up.
      debug: (config.logger?.debug ?? (() => undefined)).bind(logger),
    },
    // Test runs build many routers: their output would bury what the tests print.
    warnings: Object.freeze({ unindexedSorts: config.warnings?.unindexedSorts ?? process.env.NODE_ENV !== 'test' }),
    trustedOrigins: new Set(config.security?.trustedOrigins ?? []),
    clientKeyBy: config.security?.rateLimit?.keyBy,
    authChallenge: authChallenge(config),
    clock: config.clock ?? systemClock,
    features: parsed.features,
  });
}
