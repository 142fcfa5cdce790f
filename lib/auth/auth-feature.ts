// Authentication as a feature: for every auth collection its shared state and routes, plus the private
// Passport instance and the hooks it adds (who the caller is, default access, read-only fields, hashing).
import type { Feature } from '../http/feature';
import type { Runtime } from '../operations/runtime';
import type { AccessClaims } from './access-token';
import { authDefaultAccess, authReadOnlyFields } from './auth-access';
import type { AuthFeatureOptions } from './auth-options';
import { type AuthCollection, createAuthCollection } from './auth-collection';
import { authRoutes } from './auth-routes';
import { createAuthenticate } from './authenticate';
import { createLocalAuth } from './local-auth';
import { createMailer } from './mailer';
import { createAuthPassport } from './passport-strategies';
import { hashPassword } from './password-hash';
import { checkPassword } from './password-policy';
import { createUserResolver } from './resolve-user';
import { parseAuthOptions } from './validate-auth-config';
import { REHASH_ACTOR, isAuthFlow } from './user-writes';
import { createVerifiedTokens } from './verified-tokens';
import { nowMs } from '../util/clock';

/**
 * A password set through the update operation (an admin's PATCH, the local API) ends the user's sessions,
 * as a reset does: whoever held the old password must not keep refreshing. Auth's own flows are left out:
 * change-password and reset end the sessions themselves before starting the new one (a revocation from
 * here could land after it), and a login's hash upgrade keeps the same password. Returns the unsubscribe.
 */
function endSessionsOnPasswordChange(collections: ReadonlyMap<string, AuthCollection>, runtime: Runtime): () => void {
  return runtime.changes.onChange((event) => {
    const auth = event.scope === 'collection' ? collections.get(event.slug) : undefined;
    if (!auth || event.origin !== 'local' || event.type !== 'update' || !event.fields?.includes('password') || isAuthFlow(event.actor)) return;
    for (const id of event.ids) {
      auth.refreshTokens.revokeAll(id).catch((error: unknown) => runtime.config.logger.error('content-router: could not end sessions after a password change:', error));
    }
  });
}

/** `auth: true` collections: tokens, API keys, e-mail flows; api.auth serves the first auth collection. */
export const authFeature: Feature<AuthFeatureOptions> = {
  name: 'auth',
  options: parseAuthOptions,
  create(runtime, lifecycle, options) {
    const mailer = createMailer(options.sendEmail, runtime.config.logger);
    const collections = new Map<string, AuthCollection>();
    for (const collection of runtime.collections.values()) {
      const own = options.collections.get(collection.descriptor.slug);
      if (collection.descriptor.isAuth && own) collections.set(collection.descriptor.slug, createAuthCollection(runtime, collection, own, mailer));
    }
    // Without auth collections, api.auth still exists and says so when called.
    const { jwt } = options;
    if (collections.size === 0 || !jwt) return { expose: { auth: createLocalAuth(collections) } };

    const users = createUserResolver(collections, options.userCacheTtl, runtime.changes, runtime.config.clock);
    const endSessions = endSessionsOnPasswordChange(collections, runtime);
    const userOfClaims = (claims: AccessClaims) => users.loadUser(claims.col, claims.sub);
    const { clock } = runtime.config;
    const verifiedTokens = createVerifiedTokens(() => nowMs(clock));
    const passport = createAuthPassport({
      jwt,
      clock,
      userOfClaims,
      userOfApiKey: (key) => users.userOfApiKey(key),
      onVerified: (token, claims, exp) => verifiedTokens.set(token, claims, exp),
    });

    lifecycle.onReady.push(async () => {
      await Promise.all([...collections.values()].map((auth) => auth.init()));
    });
    lifecycle.onClose.push(() => {
      users.close();
      endSessions();
    });
    return {
      routes: [...collections.values()].flatMap(authRoutes),
      hooks: {
        authenticate: [createAuthenticate({ passport, verifiedTokens, userOfClaims })],
        defaultAccess: [authDefaultAccess],
        readOnlyFields: [authReadOnlyFields],
        transformInput: [
          async ({ collection, input, actor }) => {
            const auth = collection.isAuth ? collections.get(collection.slug) : undefined;
            if (!auth || !Object.hasOwn(input.set, 'password')) return;
            // A login's hash upgrade stores the password the user already has: the policy is for choosing one.
            if (actor?.name !== REHASH_ACTOR.name) input.errors.push(...checkPassword(input.set.password, auth.options.password));
            // Nothing is written when there are errors, so do not spend a hash on it.
            if (input.errors.length) return;
            input.set.password = await hashPassword(String(input.set.password), auth.options.hash);
          },
        ],
      },
      expose: { auth: createLocalAuth(collections) },
    };
  },
};
