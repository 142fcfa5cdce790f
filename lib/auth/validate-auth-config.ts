// Authentication's options, checked and resolved in one pass at start-up: the secret (required, >= 32
// characters once any collection has auth), durations, the password policy and hash cost, field names,
// the e-mail sender; then the router-wide token options and each auth collection's complete options.
import type { ParsedOptions } from '../config/resolve-config';
import type { CollectionAuthOptions, ContentConfig } from '../config/types';
import { AUTH_FIELDS, REDEFINABLE_AUTH_FIELDS } from '../config/auth-fields';
import { type AuthFeatureOptions, COLLECTION_AUTH_KEYS, DEFAULT_USER_CACHE_TTL, resolveAuthOptions, resolveJwtOptions } from './auth-options';
import { parseDuration } from '../util/duration';
import { isScryptCost } from './password-hash';
import { MAX_PASSWORD_LENGTH } from './password-policy';
import { authStoreNames } from './store-names';
import { isRecord } from '../util/is-record';

/** Shortest accepted `auth.jwtSecret`: 32 characters, about the 256 bits HS256 wants from a random secret. */
export const MIN_SECRET_LENGTH = 32;

/** Every key of the top-level `auth` object: the per-collection ones plus the router-wide ones. */
const AUTH_KEYS: ReadonlySet<string> = new Set([
  ...COLLECTION_AUTH_KEYS, 'jwtSecret', 'issuer', 'audience', 'passwordHash', 'userCacheTtl', 'fromRequest',
]);

const DURATIONS = ['jwtExpiry', 'refreshExpiry', 'resetExpiry', 'verificationExpiry', 'lockTime'] as const;

function checkShared(path: string, options: CollectionAuthOptions, problems: string[]): void {
  for (const key of DURATIONS) {
    const value = options[key];
    if (value !== undefined && parseDuration(value) === undefined) {
      problems.push(`${path}.${key}: must be a duration such as "15m", "12h" or "7d" (units ms, s, m, h, d, w) or a number of seconds`);
    }
  }
  for (const key of ['requireVerification', 'allowRegistration', 'revokeApiKeysOnReset'] as const) {
    if (options[key] !== undefined && typeof options[key] !== 'boolean') problems.push(`${path}.${key}: must be a boolean`);
  }
  const attempts = options.maxLoginAttempts;
  if (attempts !== undefined && !(Number.isInteger(attempts) && attempts >= 0)) {
    problems.push(`${path}.maxLoginAttempts: must be an integer >= 0 (0 disables locking)`);
  }
  for (const key of ['resetPasswordUrl', 'verifyEmailUrl'] as const) {
    const url = options[key];
    if (url !== undefined && (typeof url !== 'string' || !url.includes('{token}'))) {
      problems.push(`${path}.${key}: must be a string containing "{token}"`);
    }
  }
  const policy = options.password;
  if (policy === undefined) return;
  if (!isRecord(policy)) {
    problems.push(`${path}.password: must be an object { minLength, requireUppercase, requireNumbers, requireSymbols }`);
    return;
  }
  for (const key of Object.keys(policy)) {
    if (!['minLength', 'requireUppercase', 'requireNumbers', 'requireSymbols'].includes(key)) problems.push(`${path}.password.${key}: unknown option`);
  }
  const min = policy.minLength;
  if (min !== undefined && !(typeof min === 'number' && Number.isInteger(min) && min >= 1 && min <= MAX_PASSWORD_LENGTH)) {
    problems.push(`${path}.password.minLength: must be an integer from 1 to ${MAX_PASSWORD_LENGTH}`);
  }
  for (const key of ['requireUppercase', 'requireNumbers', 'requireSymbols'] as const) {
    if (policy[key] !== undefined && typeof policy[key] !== 'boolean') problems.push(`${path}.password.${key}: must be a boolean`);
  }
}

function checkHash(hash: unknown, problems: string[]): void {
  if (hash === undefined) return;
  if (!isRecord(hash)) {
    problems.push('auth.passwordHash: must be an object { cost, blockSize, parallelization }');
    return;
  }
  for (const key of Object.keys(hash)) {
    if (!['cost', 'blockSize', 'parallelization'].includes(key)) problems.push(`auth.passwordHash.${key}: unknown option`);
  }
  if (hash.cost !== undefined && !isScryptCost(hash.cost)) problems.push('auth.passwordHash.cost: must be a power of two from 2 to 1048576');
  for (const [key, max] of [['blockSize', 32], ['parallelization', 16]] as const) {
    const value = hash[key];
    if (value !== undefined && !(Number.isInteger(value) && (value as number) >= 1 && (value as number) <= max)) {
      problems.push(`auth.passwordHash.${key}: must be an integer from 1 to ${max}`);
    }
  }
}

/** Checks and resolves the auth options (`auth`, `email`, each collection's `auth`). */
export function parseAuthOptions(config: ContentConfig): ParsedOptions<AuthFeatureOptions> {
  const problems = authProblems(config);
  const collections = new Map<string, ReturnType<typeof resolveAuthOptions>>();
  const none: AuthFeatureOptions = { jwt: undefined, userCacheTtl: DEFAULT_USER_CACHE_TTL, sendEmail: undefined, collections };
  if (problems.length) return { problems, options: none };
  // Over the collections the core accepts the shape of (a broken entry is the core's problem to report).
  for (const collection of config.collections ?? []) {
    if (isRecord(collection) && collection.auth && typeof collection.slug === 'string') collections.set(collection.slug, resolveAuthOptions(config, collection));
  }
  return {
    problems,
    options: Object.freeze({
      jwt: collections.size ? resolveJwtOptions(config) : undefined,
      userCacheTtl: config.auth?.userCacheTtl ?? DEFAULT_USER_CACHE_TTL,
      sendEmail: config.email?.send,
      collections,
    }),
  };
}

/** Every auth problem of the config, by path; empty when there is none. */
function authProblems(config: ContentConfig): string[] {
  const problems: string[] = [];
  const auth = config.auth;
  if (auth !== undefined && !isRecord(auth)) return ['auth: must be an object'];
  // Read as given: the host's entries are checked here, before their types can be trusted.
  const collections: readonly unknown[] = Array.isArray(config.collections) ? config.collections : [];
  const authCollections = collections.filter((c) => isRecord(c) && c.auth !== undefined && c.auth !== false);

  if (auth) {
    for (const key of Object.keys(auth)) {
      if (!AUTH_KEYS.has(key)) problems.push(`auth.${key}: unknown option`);
    }
    checkShared('auth', auth, problems);
    checkHash(auth.passwordHash, problems);
    const ttl = auth.userCacheTtl;
    if (ttl !== undefined && !(typeof ttl === 'number' && Number.isFinite(ttl) && ttl >= 0)) {
      problems.push('auth.userCacheTtl: must be a number of seconds >= 0 (0 disables the cache)');
    }
    for (const key of ['issuer', 'audience'] as const) {
      if (auth[key] !== undefined && (typeof auth[key] !== 'string' || auth[key] === '')) problems.push(`auth.${key}: must be a non-empty string`);
    }
  }
  if (authCollections.length) {
    const secret = auth?.jwtSecret;
    if (typeof secret !== 'string' || secret.length < MIN_SECRET_LENGTH) {
      problems.push(`auth.jwtSecret: required, at least ${MIN_SECRET_LENGTH} characters, when a collection has auth (read it from the environment)`);
    }
  }
  if (config.email !== undefined && (!isRecord(config.email) || (config.email.send !== undefined && typeof config.email.send !== 'function'))) {
    problems.push('email.send: must be a function ({ to, subject, text, html }) => void | Promise<void>');
  } else if (isRecord(config.email)) {
    for (const key of Object.keys(config.email)) if (key !== 'send') problems.push(`email.${key}: unknown option`);
  }

  const slugs = new Set(collections.map((c) => (isRecord(c) ? c.slug : undefined)));
  collections.forEach((c, i) => {
    if (!isRecord(c) || c.auth === undefined || c.auth === false) return;
    const path = `collections[${i}]`;
    if (c.auth !== true && !isRecord(c.auth)) {
      problems.push(`${path}.auth: must be true or an object of auth options`);
      return;
    }
    if (isRecord(c.auth)) {
      for (const key of Object.keys(c.auth)) {
        if (!COLLECTION_AUTH_KEYS.has(key)) problems.push(`${path}.auth.${key}: not a per-collection auth option`);
      }
      checkShared(`${path}.auth`, c.auth, problems);
    }
    if (isRecord(c.fields)) {
      for (const name of Object.keys(c.fields)) {
        if (Object.hasOwn(AUTH_FIELDS, name) && !REDEFINABLE_AUTH_FIELDS.has(name)) {
          problems.push(`${path}.fields.${name}: defined by auth collections; remove it (only name and role may be redefined)`);
        }
      }
    }
    if (typeof c.slug === 'string') {
      for (const store of Object.values(authStoreNames(c.slug))) {
        if (slugs.has(store)) problems.push(`${path}.slug: auth stores its data in "${store}", which is also a collection slug`);
      }
    }
  });
  return problems;
}
