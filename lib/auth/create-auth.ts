// Wires authentication into a router: per auth collection its shared state and routes, plus the private
// Passport instance, the runtime hooks (authenticate, access, read-only fields, hashing) and api.auth.
import type { Router } from 'express';
import type { AuthUser } from '../config/types';
import type { Runtime } from '../operations/runtime';
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

export interface AuthSystem {
  /** Assigned onto the runtime by contentRouter(). */
  hooks: Required<Pick<Runtime, 'authenticate' | 'defaultAccess' | 'readOnlyFields' | 'transformInput'>>;
  /** The auth router of each auth collection, by slug. */
  routes: ReadonlyMap<string, Router>;
  local: LocalAuthApi;
  /** Builds the credential stores' indexes (part of api.ready). */
  init(): Promise<void>;
}

const OBJECT_ID = /^[0-9a-fA-F]{24}$/;

/** Builds authentication for the runtime's auth collections, or undefined when there are none. */
export function createAuth(runtime: Runtime): AuthSystem | undefined {
  const mailer = createMailer(runtime.config.source.email?.send, runtime.config.logger);
  const collections = new Map<string, AuthCollection>();
  for (const collection of runtime.collections.values()) {
    if (collection.descriptor.isAuth) collections.set(collection.descriptor.slug, createAuthCollection(runtime, collection, mailer));
  }
  if (collections.size === 0) return undefined;

  /** The user of an auth collection as access rules see it: its record (no hidden field), plus collection and scopes. */
  async function loadUser(slug: string, id: string, scopes?: AuthUser['scopes']): Promise<AuthUser | null> {
    const auth = collections.get(slug);
    if (!auth || !OBJECT_ID.test(id)) return null;
    const row = await auth.collection.model.findById(id, auth.collection.projection).lean<Record<string, unknown>>();
    if (!row) return null;
    const user: AuthUser = { ...auth.collection.serialize(row), collection: slug };
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
  };
}
