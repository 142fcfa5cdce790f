// Everything the auth operations of one auth collection share: its records, options, credential
// stores and mailer. Built once per auth collection by create-auth.ts.
import type { CollectionRuntime, Runtime } from '../operations/runtime';
import { type ApiKeyStore, createApiKeyStore } from './api-key-store';
import type { ResolvedAuthOptions } from './auth-options';
import { type LoginFailureStore, createLoginFailureStore } from './login-failure-store';
import type { Mailer } from './mailer';
import { hashPassword } from './password-hash';
import { createRandomToken } from '../util/random-token';
import { type RefreshTokenStore, createRefreshTokenStore } from './refresh-token-store';
import { authStoreNames } from './store-names';

export interface AuthCollection {
  readonly runtime: Runtime;
  readonly collection: CollectionRuntime;
  readonly slug: string;
  readonly options: ResolvedAuthOptions;
  readonly refreshTokens: RefreshTokenStore;
  readonly apiKeys: ApiKeyStore;
  readonly failures: LoginFailureStore;
  readonly mailer: Mailer;
  /**
   * `filter` limited to users that are not soft-deleted (collections with softDelete): a deleted user is
   * nobody, for tokens, API keys, refresh, login, reset and verification alike, until restored.
   */
  active(filter: Record<string, unknown>): Record<string, unknown>;
  /** A real hash to verify against when the e-mail is unknown, so both answers cost one scrypt. */
  dummyHash(): Promise<string>;
  /** Builds the stores' indexes. */
  init(): Promise<void>;
}

/** Creates the shared state of one auth collection. */
export function createAuthCollection(runtime: Runtime, collection: CollectionRuntime, options: ResolvedAuthOptions, mailer: Mailer): AuthCollection {
  const slug = collection.descriptor.slug;
  const names = authStoreNames(slug);
  let dummy: Promise<string> | undefined;
  // Made lazily, with the current parameters, so it costs exactly what a real verify costs.
  const dummyHash = () => (dummy ??= hashPassword(createRandomToken(), options.hash));
  const { clock } = runtime.config;
  const stores = {
    refreshTokens: createRefreshTokenStore(runtime.connection, names.refreshTokens, clock),
    apiKeys: createApiKeyStore(runtime.connection, names.apiKeys, clock),
    failures: createLoginFailureStore(runtime.connection, names.loginFailures, {
      maxAttempts: options.maxLoginAttempts,
      lockTimeMs: options.lockTimeMs,
      clock,
    }),
  };
  const softDelete = collection.descriptor.softDelete;
  return Object.freeze({
    runtime,
    collection,
    slug,
    options,
    ...stores,
    mailer,
    active: (filter: Record<string, unknown>) => (softDelete ? { ...filter, deletedAt: null } : filter),
    dummyHash,
    async init() {
      await Promise.all([stores.refreshTokens.init(), stores.apiKeys.init(), stores.failures.init(), dummyHash()]);
    },
  });
}

