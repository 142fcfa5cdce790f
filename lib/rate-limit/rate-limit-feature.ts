// Rate limiting as a feature: every route the router serves counts against the client's limit; the
// credential routes (login, register, password reset) also against a stricter one per client and account.
import type { RequestHandler } from 'express';
import { MemoryStore, type Store } from 'express-rate-limit';
import { runChain } from '../http/dispatch';
import type { Feature } from '../http/feature';
import { createJsonBody } from '../http/json-body';
import { createAccountKey, createClientKey } from '../http/client-key';
import { createLimiter } from './create-limiter';
import { createMongoStore, createRateLimitIndexes } from './mongo-store';
import { resolveRateLimitOptions } from './rate-limit-options';
import { createStoreHealth } from './store-health';
import { validateRateLimitConfig } from './validate-rate-limit';

/** `security.rateLimit`: limits on the router's own routes only; paths it does not serve are never counted. */
export const rateLimitFeature: Feature = {
  name: 'rate-limit',
  validate: validateRateLimitConfig,
  create(runtime) {
    const options = resolveRateLimitOptions(runtime.config.source);
    if (!options) return undefined;
    const { logger } = runtime.config;
    const health = createStoreHealth(logger);
    const stores: Store[] = [];
    const newStore = (prefix: string): Store => {
      const store = options.store === 'mongo' ? createMongoStore(runtime.connection, prefix, health) : new MemoryStore();
      stores.push(store);
      return store;
    };

    const clientKey = options.keyBy ? createClientKey(options.keyBy) : undefined;
    const general = createLimiter({ name: 'api', windowMs: options.windowMs, max: options.max, store: newStore('api:'), keyOf: clientKey, logger });
    const authClientKey = clientKey ?? createClientKey(undefined);
    const { windowMs, max, maxPerClient } = options.auth;
    // Per account first: a client hammering one address is stopped there, without using up the bound
    // that lets other people behind the same address (an office, a NAT) still log in.
    const authChain: RequestHandler[] = [
      general,
      // The account is named in the JSON body, which the table parses only after feature middleware;
      // parsed here, the route's own parser then finds the body read and passes.
      createJsonBody(runtime.config.bodyLimit),
      createLimiter({ name: 'auth', windowMs, max, store: newStore('auth:'), keyOf: createAccountKey(authClientKey), logger }),
      createLimiter({ name: 'auth-client', windowMs, max: maxPerClient, store: newStore('auth-client:'), keyOf: authClientKey, logger }),
    ];
    const limitAuth: RequestHandler = (req, res, next) => runChain(authChain, req, res, next);

    return {
      middleware: (route) => (route.rateLimit === 'auth' ? limitAuth : general),
      async ready() {
        if (options.store !== 'mongo') return;
        await createRateLimitIndexes(runtime.connection).catch((error: unknown) =>
          logger.warn('content-router: could not create the rate-limit TTL index (expired counts stay until it exists):', error),
        );
      },
      async close() {
        await Promise.all(stores.map((store) => store.shutdown?.()));
      },
    };
  },
};
