// Wires authentication into a router: per auth collection its shared state and routes, plus the private
// Passport instance, the runtime hooks (authenticate, access, read-only fields, hashing) and api.auth.
import type { Router } from 'express';
import type { AuthUser } from '../config/types';
import type { ChangeEvent, Runtime } from '../operations/runtime';
import type { AccessClaims } from './access-token';
import { authDefaultAccess, authReadOnlyFields } from './auth-access';
import { resolveJwtOptions } from './auth-options';
import { type AuthCollection, createAuthCollection } from './auth-collection';
import { createAuthRoutes } from './auth-routes';
import { createAuthenticate } from './authenticate';
import { type LocalAuthApi, createLocalAuth } from './local-auth';
import { createMailer } from './mailer';
import { createAuthPassport } from './passport-strategies';
import { hashPassword } from './password-hash';
import { checkPassword } from './password-policy';
import { createUserCache } from './user-cache';
import { isObjectIdString } from '../util/object-id';

export interface AuthSystem {
  /** Assigned onto the runtime by contentRouter(). */
  hooks: Required<Pick<Runtime, 'authenticate' | 'defaultAccess' | 'readOnlyFields' | 'transformInput'>>;
  /** The auth router of each auth collection, by slug. */
  routes: ReadonlyMap<string, Router>;
  local: LocalAuthApi;
  /** Builds the credential stores' indexes (part of api.ready). */
  init(): Promise<void>;
  /** Drops cached users and stops listening for changes (part of api.close). */
  close(): void;
}

/** Seconds a token's user is reused before it is read again (auth.userCacheTtl). */
const DEFAULT_USER_CACHE_TTL = 10;

/**
 * A password set through the update operation (an admin's PATCH, the local API) ends the user's sessions,
 * as a reset does: whoever held the old password must not keep refreshing. Returns the unsubscribe.
 */
function endSessionsOnPasswordChange(collections: ReadonlyMap<string, AuthCollection>, runtime: Runtime): () => void {
  const onChange = (event: ChangeEvent) => {
    const auth = collections.get(event.collection);
    if (!auth || event.type !== 'update' || !event.fields?.includes('password')) return;
    for (const id of event.ids) {
      auth.refreshTokens.revokeAll(id).catch((error: unknown) => runtime.config.logger.error('content-router: could not end sessions after a password change:', error));
    }
  };
  runtime.events.on('change', onChange);
  return () => runtime.events.off('change', onChange);
}

/** Builds authentication for the runtime's auth collections, or undefined when there are none. */
export function createAuth(runtime: Runtime): AuthSystem | undefined {
  const mailer = createMailer(runtime.config.source.email?.send, runtime.config.logger);
  const collections = new Map<string, AuthCollection>();
  for (const collection of runtime.collections.values()) {
    if (collection.descriptor.isAuth) collections.set(collection.descriptor.slug, createAuthCollection(runtime, collection, mailer));
  }
  if (collections.size === 0) return undefined;
  const users = createUserCache(runtime.config.source.auth?.userCacheTtl ?? DEFAULT_USER_CACHE_TTL, runtime.events);
  const endSessions = endSessionsOnPasswordChange(collections, runtime);

  /** The user of an auth collection as access rules see it: its record (no hidden field), plus collection and scopes. */
  async function loadUser(slug: string, id: string, scopes?: AuthUser['scopes']): Promise<AuthUser | null> {
    const auth = collections.get(slug);
    if (!auth || !isObjectIdString(id)) return null;
    let user = users.get(slug, id);
    if (!user) {
      const row = await auth.collection.model.findOne(auth.active({ _id: id }), auth.collection.projection).lean<Record<string, unknown>>();
      if (!row) return null;
      user = { ...auth.collection.serialize(row), collection: slug };
      users.set(slug, id, { ...user });
    }
    if (scopes) user.scopes = scopes;
    return user;
  }

  const passport = createAuthPassport({
    jwt: resolveJwtOptions(runtime.config.source),
    userOfClaims: (claims: AccessClaims) => loadUser(claims.col, claims.sub),
    async userOfApiKey(key) {
      for (const [slug, auth] of collections) {
        const owner = await auth.apiKeys.verify(key);
        if (owner) return loadUser(slug, owner.userId, owner.scopes);
      }
      return null;
    },
  });

  return {
    hooks: {
      authenticate: createAuthenticate(passport, runtime.config.fromRequest),
      defaultAccess: authDefaultAccess,
      readOnlyFields: authReadOnlyFields,
      async transformInput({ collection, input }) {
        const auth = collection.isAuth ? collections.get(collection.slug) : undefined;
        if (!auth || !Object.hasOwn(input.set, 'password')) return;
        input.errors.push(...checkPassword(input.set.password, auth.options.password));
        // Nothing is written when there are errors, so do not spend a hash on it.
        if (input.errors.length) return;
        input.set.password = await hashPassword(String(input.set.password), auth.options.hash);
      },
    },
    routes: new Map([...collections].map(([slug, auth]) => [slug, createAuthRoutes(auth)])),
    local: createLocalAuth(collections),
    async init() {
      await Promise.all([...collections.values()].map((auth) => auth.init()));
    },
    close() {
      users.close();
      endSessions();
    },
  };
}
