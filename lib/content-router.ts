// The factory: resolve the config, build models on the router's connection, mount the routes,
// and return an Express router carrying the local API and lifecycle members (DESIGN §1, §10).
import { EventEmitter } from 'node:events';
import type { Server } from 'node:http';
import express, { type Router } from 'express';
import mongoose, { type Connection } from 'mongoose';
import { createAuth } from './auth/create-auth';
import { validateAuthConfig } from './auth/validate-auth-config';
import { type LocalAuthApi, createLocalAuth } from './auth/local-auth';
import { type ResolvedConfig, resolveConfig } from './config/resolve-config';
import type { ContentConfig } from './config/types';
import { createCollectionRoutes } from './http/collection-routes';
import { createErrorHandler } from './http/error-handler';
import { createGlobalRoutes } from './http/global-routes';
import { type LocalApi, createLocalApi } from './local/local-api';
import { type Runtime, createCollectionRuntime } from './operations/runtime';
import { buildCollectionModels, buildGlobalModels } from './schema/build-models';

/** The router contentRouter() returns: mount it with app.use(prefix, api). */
export interface ContentRouter extends Router {
  /** Server-side access to the same operations (access overridden unless a user is passed). */
  readonly local: LocalApi;
  /** Server-side auth operations (register, login, logout, ...) of the first auth collection (docs/auth.md). */
  readonly auth: LocalAuthApi;
  /** Resolves when the connection is open and every index is built; rejects if that fails. */
  readonly ready: Promise<void>;
  /** Hooks WebSocket upgrades onto the host's HTTP server (realtime). Idempotent. */
  attach(server: Server): void;
  /** Stops change streams, sockets and timers; closes the connection only if the router opened it. */
  close(): Promise<void>;
}

function openConnection(config: ResolvedConfig): { connection: Connection; owned: boolean } {
  const db = config.source.db;
  if (db.connection) return { connection: db.connection, owned: false };
  // Never mongoose.connect(): the global default connection belongs to the host.
  const connection = mongoose.createConnection(db.uri!, (db as { options?: Record<string, unknown> }).options ?? {});
  return { connection, owned: true };
}

async function buildIndexes(runtime: Runtime): Promise<void> {
  await runtime.connection.asPromise();
  const models = [...runtime.collections.values(), ...runtime.globals.values()].map((c) => c.model);
  await Promise.all(models.map((model) => model.createIndexes()));
}

/** Builds the content API router from a config. Throws a ConfigError listing every config problem. */
export function contentRouter(config: ContentConfig): ContentRouter {
  const resolved = resolveConfig(config, [validateAuthConfig]);
  const { connection, owned } = openConnection(resolved);
  const collectionModels = buildCollectionModels(connection, resolved.registry.values());
  const globalModels = buildGlobalModels(connection, resolved.globalRegistry.values());

  const runtime: Runtime = {
    config: resolved,
    connection,
    collections: new Map([...resolved.registry.values()].map((d) => [d.slug, createCollectionRuntime(d, collectionModels.get(d.slug)!)])),
    globals: new Map([...resolved.globalRegistry.values()].map((d) => [d.slug, createCollectionRuntime(d, globalModels.get(d.slug)!)])),
    events: new EventEmitter(),
    authenticate: async (req) => resolved.fromRequest(req),
  };
  // Auth collections replace authenticate and add default access, read-only fields and password hashing.
  const auth = createAuth(runtime);
  if (auth) Object.assign(runtime, auth.hooks);

  const router = express.Router() as ContentRouter;
  if (runtime.globals.size) router.use('/globals', createGlobalRoutes(runtime));
  for (const collection of runtime.collections.values()) {
    const slug = collection.descriptor.slug;
    // Auth routes first, so /me and /api-keys are not taken for record ids.
    const authRoutes = auth?.routes.get(slug);
    if (authRoutes) router.use(`/${slug}`, authRoutes);
    router.use(`/${slug}`, createCollectionRoutes(runtime, collection));
  }
  router.use(createErrorHandler(resolved.logger));

  const ready = buildIndexes(runtime).then(() => auth?.init());
  // Marked handled so a host that never awaits `ready` does not crash on an unhandled rejection.
  ready.catch((error: unknown) => resolved.logger.error('content-router: startup failed:', error));

  let closed = false;
  Object.assign(router, {
    local: createLocalApi(runtime),
    auth: auth?.local ?? createLocalAuth(new Map()),
    ready,
    attach(_server: Server) {
      // Realtime transports hook in here; without realtime there is nothing to attach.
    },
    async close() {
      if (closed) return;
      closed = true;
      auth?.close();
      runtime.events.removeAllListeners();
      if (owned) await connection.close();
    },
  });
  return router;
}
