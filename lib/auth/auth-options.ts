// Resolves the auth options of one auth collection (top-level `auth`, overridden by the collection's
// own `auth: {...}`) into complete values in the units the code uses. Runs once, at contentRouter(), in
// the auth options' one pass (validate-auth-config.ts), after their checks found no problem.
import type { CollectionAuthOptions, CollectionConfig, ContentConfig, EmailMessage } from '../config/types';
import { type AccessTokenOptions, toSigningKey } from './access-token';
import { parseDuration } from '../util/duration';
import { DEFAULT_SCRYPT_PARAMS, type ScryptParams } from './password-hash';
import { type ResolvedPasswordPolicy, resolvePasswordPolicy } from './password-policy';

export interface ResolvedAuthOptions {
  readonly jwt: Readonly<AccessTokenOptions>;
  readonly jwtExpirySeconds: number;
  readonly refreshExpiryMs: number;
  readonly resetExpiryMs: number;
  readonly verificationExpiryMs: number;
  readonly requireVerification: boolean;
  readonly allowRegistration: boolean;
  /** 0: never lock. */
  readonly maxLoginAttempts: number;
  readonly lockTimeMs: number;
  readonly password: ResolvedPasswordPolicy;
  readonly hash: Readonly<ScryptParams>;
  readonly resetPasswordUrl?: string;
  readonly verifyEmailUrl?: string;
  readonly revokeApiKeysOnReset: boolean;
}

/** What the auth feature runs on, resolved once from the config. */
export interface AuthFeatureOptions {
  /** The router-wide access-token options; undefined without an auth collection. */
  readonly jwt: Readonly<AccessTokenOptions> | undefined;
  /** Seconds a token's user is reused before it is read again (`auth.userCacheTtl`). */
  readonly userCacheTtl: number;
  /** `email.send`; undefined: mails are logged. */
  readonly sendEmail: ((mail: EmailMessage) => Promise<void> | void) | undefined;
  /** Each auth collection's complete options, by slug. */
  readonly collections: ReadonlyMap<string, ResolvedAuthOptions>;
}

/** Seconds a token's user is reused before it is read again, when `auth.userCacheTtl` is not set. */
export const DEFAULT_USER_CACHE_TTL = 10;

/** The defaults documented in docs/auth.md. */
export const AUTH_DEFAULTS = Object.freeze({
  jwtExpiry: '15m',
  refreshExpiry: '30d',
  resetExpiry: '1h',
  verificationExpiry: '24h',
  lockTime: '15m',
  maxLoginAttempts: 5,
});

/** Option keys a collection's `auth: {...}` may set (validate-auth-config rejects others). */
export const COLLECTION_AUTH_KEYS: ReadonlySet<string> = new Set<keyof CollectionAuthOptions>([
  'jwtExpiry', 'refreshExpiry', 'resetExpiry', 'verificationExpiry', 'requireVerification', 'allowRegistration',
  'maxLoginAttempts', 'lockTime', 'password', 'resetPasswordUrl', 'verifyEmailUrl', 'revokeApiKeysOnReset',
]);

// Validation ran first, so a failed parse here is a bug, not a host mistake.
function ms(value: string | number): number {
  const parsed = parseDuration(value);
  if (parsed === undefined) throw new Error(`content-router: invalid duration ${JSON.stringify(value)}`);
  return parsed;
}

/** The router-wide access-token options (secret, issuer, audience); expiry is per collection. */
export function resolveJwtOptions(config: ContentConfig): Readonly<AccessTokenOptions> {
  const top = config.auth ?? {};
  if (top.jwtSecret === undefined) throw new Error('content-router: auth.jwtSecret is missing after validation');
  return Object.freeze({ secret: toSigningKey(top.jwtSecret), issuer: top.issuer, audience: top.audience });
}

/** The complete auth options of an auth collection. Assumes the checks of parseAuthOptions found no problem. */
export function resolveAuthOptions(config: ContentConfig, collection: CollectionConfig): ResolvedAuthOptions {
  const top = config.auth ?? {};
  const own = typeof collection.auth === 'object' ? collection.auth : {};
  const pick = <K extends keyof CollectionAuthOptions>(key: K): CollectionAuthOptions[K] => own[key] ?? top[key];
  return Object.freeze({
    jwt: resolveJwtOptions(config),
    jwtExpirySeconds: Math.ceil(ms(pick('jwtExpiry') ?? AUTH_DEFAULTS.jwtExpiry) / 1000),
    refreshExpiryMs: ms(pick('refreshExpiry') ?? AUTH_DEFAULTS.refreshExpiry),
    resetExpiryMs: ms(pick('resetExpiry') ?? AUTH_DEFAULTS.resetExpiry),
    verificationExpiryMs: ms(pick('verificationExpiry') ?? AUTH_DEFAULTS.verificationExpiry),
    requireVerification: pick('requireVerification') ?? false,
    allowRegistration: pick('allowRegistration') ?? true,
    maxLoginAttempts: pick('maxLoginAttempts') ?? AUTH_DEFAULTS.maxLoginAttempts,
    lockTimeMs: ms(pick('lockTime') ?? AUTH_DEFAULTS.lockTime),
    password: resolvePasswordPolicy({ ...top.password, ...own.password }),
    hash: Object.freeze({ ...DEFAULT_SCRYPT_PARAMS, ...top.passwordHash }),
    resetPasswordUrl: pick('resetPasswordUrl'),
    verifyEmailUrl: pick('verifyEmailUrl'),
    revokeApiKeysOnReset: pick('revokeApiKeysOnReset') ?? false,
  });
}
