// Rate limiting as a feature: every route the router serves counts against the client's limit (onRequest);
// the credential routes (login, register, password reset) also against a stricter one per client and
// account (preHandler, once the parse phase has read the account's e-mail from the body).
import { MemoryStore, type Store } from 'express-rate-limit';
import type { Feature } from '../http/feature';
import { createAccountKey, createClientKey } from '../http/client-key';
import type { RouteDef } from '../http/route-table';
import { createLimiter } from './create-limiter';
import { createMongoStore, createRateLimitIndexes } from './mongo-store';
import { type ResolvedRateLimit, parseRateLimitOptions } from './rate-limit-options';
import { createStoreHealth } from './store-health';

declare module '../http/route-table' {
  interface RouteConfig {
    /** `auth`: a credential route (login, register, password reset), under the stricter limits too. */
    rateLimit?: 'auth';
  }
}

/** `security.rateLimit`: limits on the router's own routes only; paths it does not serve are never counted. */
export const rateLimitFeature: Feature<ResolvedRateLimit | undefined> = {
  name: 'rate-limit',
  options: parseRateLimitOptions,
  create(runtime, lifecycle, options) {
    if (!options) return undefined;
    const { logger } = runtime.config;
    const health = createStoreHealth(logger);
    const stores: Store[] = [];
    const newStore = (prefix: string): Store => {
      const store = options.store === 'mongo' ? createMongoStore(runtime.connection, prefix, health, runtime.config.clock) : new MemoryStore();
      stores.push(store);
      return store;
    };

    const { clientKeyBy } = runtime.config;
    const clientKey = clientKeyBy ? createClientKey(clientKeyBy) : undefined;
    const general = createLimiter({ name: 'api', windowMs: options.windowMs, max: options.max, store: newStore('api:'), keyOf: clientKey, logger });
    const authClientKey = clientKey ?? createClientKey(undefined);
    const { windowMs, max, maxPerClient } = options.auth;
    // Per account first: a client hammering one address is stopped there, without using up the bound
    // that lets other people behind the same address (an office, a NAT) still log in.
    const perAccount = createLimiter({ name: 'auth', windowMs, max, store: newStore('auth:'), keyOf: createAccountKey(authClientKey), logger });
    const perClient = createLimiter({ name: 'auth-client', windowMs, max: maxPerClient, store: newStore('auth-client:'), keyOf: authClientKey, logger });
    const credentialRoute = (route: RouteDef) => route.config?.rateLimit === 'auth';

    // Counted before any other work but the database gate's refusal.
    lifecycle.onRequest.push(() => general);
    lifecycle.preHandler.push((route) => (credentialRoute(route) ? perAccount : undefined));
    lifecycle.preHandler.push((route) => (credentialRoute(route) ? perClient : undefined));
    lifecycle.onReady.push(async () => {
      if (options.store !== 'mongo') return;
      await createRateLimitIndexes(runtime.connection).catch((error: unknown) =>
        logger.warn('content-router: could not create the rate-limit TTL index (expired counts stay until it exists):', error),
      );
    });
    lifecycle.onClose.push(async () => {
      await Promise.all(
        stores.map(async (store) => {
          await store.shutdown?.();
        }),
      );
    });
    return undefined;
  },
};
