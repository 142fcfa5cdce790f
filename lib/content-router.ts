// The factory: resolve the config, build the runtime, add the core's hooks to the request lifecycle and let
// each feature add its own and its routes, compile the table, and return an Express router carrying the
// local API and lifecycle members.
import type { Server } from 'node:http';
import express, { type Router } from 'express';
import mongoose, { type Connection, type Model } from 'mongoose';
import { auditFeature } from './audit/audit-feature';
import { authFeature } from './auth/auth-feature';
import { cacheFeature } from './cache/cache-feature';
import { changeFeedFeature } from './change-feed/change-feed-feature';
import { endpointsFeature } from './endpoints/endpoints-feature';
import { idempotencyFeature } from './idempotency/idempotency-feature';
import { type ResolvedConfig, resolveConfig } from './config/resolve-config';
import type { ContentConfig } from './config/types';
import { cacheControlDefaults } from './http/cache-control';
import { conditionalGet } from './http/conditional-get';
import { crossOriginCheck } from './http/cross-origin';
import { type MountedRoute, createDispatcher } from './http/dispatch';
import { createDatabaseGate } from './http/database-gate';
import { createErrorHandler } from './http/error-handler';
import { type Feature, type FeatureInstance, type RouterMembers, addHooks } from './http/feature';
import { jsonBodyFor } from './http/json-body';
import { createLifecycle } from './http/lifecycle';
import type { RouteDef } from './http/route-table';
import { restFeature } from './rest/rest-feature';
import { type UpgradeListener, createUpgradeListener } from './http/upgrade-listener';
import { realtimeFeature } from './realtime/realtime-feature';
import { uploadsFeature } from './uploads/uploads-feature';
import { webhooksFeature } from './webhooks/webhooks-feature';
import { schedulingFeature } from './scheduling/scheduling-feature';
import { type LocalApi, bindLocalApi, createLocalApi } from './local/local-api';
import { openapiFeature } from './openapi/openapi-feature';
import { mcpFeature } from './mcp/mcp-feature';
import { createChangeBus } from './changes/change-bus';
import { createOutageLog } from './operations/outage-log';
import { fieldReadRules, fullView } from './operations/field-view';
import { type CollectionRuntime, type HookApiFactory, type Runtime, type RuntimeHooks, createCollectionRuntime, createRuntimeHooks } from './operations/runtime';
import { syncDraft } from './operations/drafts/sync-draft';
import { keepsHistory, versionRecorder } from './operations/versions/record-version';
import { recorderFor } from './operations/write/stored-change';
import { pruneVersions } from './operations/versions/prune-versions';
import { createPreviewTokenIndexes } from './operations/preview/preview-tokens';
import { forgetPreviews } from './operations/preview/forget-previews';
import { rateLimitFeature } from './rate-limit/rate-limit-feature';
import { buildCollectionModels, buildDraftModel, buildGlobalModels, buildVersionModel } from './schema/build-models';
import type { CollectionDescriptor } from './schema/descriptors';
import type { Clock } from './util/clock';
import { describeCollections, describeDrafts, describeGlobal } from './schema/describe-collection';
import { sortIndexWarning } from './schema/sort-index-warning';
import { databaseAddress } from './util/database-address';
import { describeError } from './util/loggable-error';

/**
 * The features of every router, in hook order: the audit log first, so every answer carries its request's
 * id (`X-Request-Id`); the rate limit next, so a request is counted before any other work; auth before the rest, so its authenticator and access defaults lead; idempotency next, so a
 * malformed key is refused once the request is counted; the change feed before
 * its consumers, so it starts before them and closes after them; custom endpoints after the generated
 * routes, so a collision names the generated route they collide with. Webhooks watch their own streams
 * (from a kept position), apart from the change feed.
 */
const FEATURES: readonly Feature<unknown>[] = [
  auditFeature,
  rateLimitFeature,
  authFeature,
  idempotencyFeature,
  restFeature,
  changeFeedFeature,
  cacheFeature,
  realtimeFeature,
  webhooksFeature,
  schedulingFeature,
  uploadsFeature,
  endpointsFeature,
  mcpFeature,
  openapiFeature,
];

/**
 * The router contentRouter() returns: mount it with app.use(prefix, api). Besides these, the members
 * features add (RouterMembers): `auth` (docs/auth.md), `realtime` when it is enabled (docs/realtime.md),
 * `webhooks` when webhooks are configured (docs/webhooks.md), and `audit` when the audit log is (docs/audit.md).
 */
export interface ContentRouter extends Router, Readonly<RouterMembers> {
  /** Server-side access to the same operations (access overridden unless a user is passed). */
  readonly local: LocalApi;
  /** Every method and path the router serves, as its dispatcher compiled them (HEAD and OPTIONS implied). */
  readonly routes: readonly MountedRoute[];
  /** Resolves when the connection is open and every index is built; rejects if that fails. */
  readonly ready: Promise<void>;
  /** Hooks WebSocket upgrades onto the host's HTTP server (realtime). Idempotent. */
  attach(server: Server): void;
  /** Stops change streams, sockets and timers; closes the connection only if the router opened it. */
  close(): Promise<void>;
}

/**
 * Defaults for the router's own connection: wait at most 5 s for a server instead of the driver's 30 s,
 * so a request during an outage that started before the driver noticed it gets its 503 within a bound
 * (docs/operations.md). An option the host set in `db.options` or in the URI's query wins.
 */
const OWN_CONNECTION_DEFAULTS: Record<string, unknown> = { serverSelectionTimeoutMS: 5000 };

function ownConnectionOptions(uri: string, options: Record<string, unknown> = {}): Record<string, unknown> {
  const query = uri.includes('?') ? uri.slice(uri.indexOf('?') + 1).toLowerCase() : '';
  const inUri = new Set(query.split('&').map((pair) => pair.split('=')[0]));
  const defaults = Object.entries(OWN_CONNECTION_DEFAULTS).filter(([key]) => !inUri.has(key.toLowerCase()));
  // The driver lets object options override the URI's, so a default is set only where neither has one.
  return { ...Object.fromEntries(defaults), ...options };
}

function openConnection(config: ResolvedConfig): { connection: Connection; owned: boolean } {
  const { db } = config;
  if (db.connection) return { connection: db.connection, owned: false };
  // Never mongoose.connect(): the global default connection belongs to the host.
  const connection = mongoose.createConnection(db.uri, ownConnectionOptions(db.uri, db.options));
  return { connection, owned: true };
}

/** The model built for a descriptor: the maps are built from the same descriptors, one model per slug. */
function modelOf<M>(models: ReadonlyMap<string, M>, slug: string): M {
  const model = models.get(slug);
  if (model === undefined) throw new Error(`content-router: no model was built for "${slug}"`);
  return model;
}

/** A collection's (or global's) runtime, with its history and working copies when it keeps them. */
function withHistory(connection: Connection, clock: Clock, descriptor: CollectionDescriptor, model: Model<Record<string, unknown>>): CollectionRuntime {
  if (!descriptor.versions) return createCollectionRuntime(descriptor, model);
  const versions = buildVersionModel(connection, descriptor);
  const draftDescriptor = descriptor.versions.drafts ? describeDrafts(descriptor) : undefined;
  const drafts = draftDescriptor && createCollectionRuntime(draftDescriptor, buildDraftModel(connection, draftDescriptor, clock), { versions });
  return createCollectionRuntime(descriptor, model, { versions, ...(drafts && { drafts }) });
}

/** Descriptors, models and hooks-to-be: everything the features are created on. */
function createRuntime(config: ResolvedConfig, connection: Connection, hookApi: HookApiFactory): Runtime {
  const registry = describeCollections(config.collections);
  const globalDescriptors = config.globals.map(describeGlobal);
  const collectionModels = buildCollectionModels(connection, registry.values(), config.clock);
  const globalModels = buildGlobalModels(connection, globalDescriptors, config.clock);
  return {
    fieldReadRules: fieldReadRules([...registry.values(), ...globalDescriptors]),
    views: { full: fullView(registry), byKey: new Map() },
    config,
    connection,
    registry,
    collections: new Map([...registry.values()].map((d) => [d.slug, withHistory(connection, config.clock, d, modelOf(collectionModels, d.slug))])),
    globals: new Map(globalDescriptors.map((d) => [d.slug, withHistory(connection, config.clock, d, modelOf(globalModels, d.slug))])),
    changes: createChangeBus(config.logger),
    outage: createOutageLog(config.logger),
    hooks: historyHooks(config.clock, [...registry.values(), ...globalDescriptors]),
    hookApi,
  };
}

/** The runtime's hook lists; with a versioned collection, the recorders of working copies and history first, and history's retention. */
function historyHooks(clock: Clock, descriptors: readonly CollectionDescriptor[]): RuntimeHooks {
  const hooks = createRuntimeHooks();
  if (descriptors.some((d) => d.versions)) {
    // A working copy is brought in line with its published record before the change's version is written.
    // Both record versioned collections only: the writes of the others need no transaction.
    hooks.changeStored.push(recorderFor(keepsHistory, syncDraft), versionRecorder(clock));
    hooks.changeCommitted.push(pruneVersions);
  }
  // A record deleted for good, leaving no working copy, takes its preview links with it, in the same session.
  if (descriptors.some((d) => d.versions?.drafts)) hooks.changeStored.push(forgetPreviews);
  return hooks;
}

/**
 * The one line a failed start is logged as: the error's name and message, the database it could not use,
 * and what to do, since the router does not try again.
 */
function startupFailure(error: unknown, connection: Connection): string {
  const address = databaseAddress(connection);
  return `content-router: startup failed: ${describeError(error)}${address ? ` (database ${address})` : ''}; it is not retried: restart the app once the database is reachable.`;
}

async function buildIndexes(runtime: Runtime): Promise<void> {
  await runtime.connection.asPromise();
  // A collection fronting the host's existing data (`existing`) is indexed only when the host asks for it.
  const owners = [...runtime.collections.values(), ...runtime.globals.values()].filter((c) => c.descriptor.buildIndexes);
  // A versioned collection's working copies and history are the router's own: their indexes go with it.
  const models = owners.flatMap((c) => [c.model, ...(c.drafts ? [c.drafts.model] : []), ...(c.versions ? [c.versions] : [])]);
  // Globals share one versions (and one drafts) collection: each model's indexes are built once.
  await Promise.all([...new Set(models)].map((model) => model.createIndexes()));
  // Preview links (of working copies only) are kept in one collection of the router's own.
  if ([...runtime.collections.values(), ...runtime.globals.values()].some((c) => c.drafts)) await createPreviewTokenIndexes(runtime.connection);
}

/** Builds the content API router from a config. Throws a ConfigError listing every config problem. */
export function contentRouter(config: ContentConfig): ContentRouter {
  const resolved = resolveConfig(config, FEATURES);
  const { connection, owned } = openConnection(resolved);
  // Hooks' `api` is the local API, built on the runtime once the features have added their members to it;
  // no hook runs before (hooks run in operations, operations on requests or api.local calls).
  // eslint-disable-next-line prefer-const -- assigned once the features are built (below); a hook that ran earlier gets the error here, not a TDZ ReferenceError
  let local: LocalApi | undefined;
  const runtime = createRuntime(resolved, connection, (caller) => {
    if (!local) throw new Error('content-router: a hook ran before the router was built');
    return bindLocalApi(local, caller);
  });
  // Once per router, not per request: sorts clients may ask for that no declared index serves.
  const sortWarning = resolved.warnings.unindexedSorts ? sortIndexWarning(runtime.registry.values()) : undefined;
  if (sortWarning) resolved.logger.warn(sortWarning);

  const instances: FeatureInstance[] = [];
  const lifecycle = createLifecycle();
  const router = express.Router() as ContentRouter;
  let dispatcher: ReturnType<typeof createDispatcher>;
  let upgrades: UpgradeListener | undefined;
  const { outage } = runtime;
  const errorHandler = createErrorHandler(resolved.logger, outage, resolved.authChallenge);
  const gate = createDatabaseGate(connection, { requestTimeoutMS: resolved.requestTimeoutMS, answer: errorHandler.answerEarly, outage });
  // The core's hooks that lead their phases: during an outage a request is refused before any other work
  // (or count); a declared JSON body is read by one parser.
  lifecycle.onRequest.push(gate.onRequest);
  lifecycle.parse.push(jsonBodyFor(resolved.bodyLimit));
  try {
    for (const feature of FEATURES) {
      const instance = feature.create(runtime, lifecycle, resolved.features.get(feature.name));
      if (!instance) continue;
      addHooks(runtime, instance.hooks);
      instances.push(instance);
    }
    // The core's hooks that close their phases: the deadline starts once every check before the handler
    // passed, and the error handler answers whatever failed.
    // A write from another site on behalf of the host's session is refused after the rate limit counted it,
    // before its body is read.
    lifecycle.onRequest.push(crossOriginCheck(runtime), cacheControlDefaults(runtime));
    lifecycle.preHandler.push(gate.deadline);
    lifecycle.onSend.push(conditionalGet);
    lifecycle.onError.push(errorHandler);
    lifecycle.onLeave.push(gate.leave);
    // Every route joins the table through onRoute, after every feature has added its hooks.
    const table: RouteDef[] = [];
    for (const route of instances.flatMap((i) => i.routes ?? [])) {
      table.push(route);
      for (const onRoute of lifecycle.onRoute) onRoute(route);
    }
    dispatcher = createDispatcher(table, lifecycle);
    router.use(dispatcher);
    // Only a router with routes taking upgrades listens to them (Node closes unclaimed upgrades otherwise).
    if (table.some((route) => route.upgrade)) upgrades = createUpgradeListener({ dispatcher, prefix: resolved.prefix });
  } catch (error) {
    // A route problem found while building (a custom route colliding with a generated one) must not leave
    // behind the connection the router opened, nor the timers of features already built.
    for (const onClose of [...lifecycle.onClose].reverse()) void Promise.resolve().then(onClose).catch(() => undefined);
    gate.close();
    runtime.changes.close();
    outage.close();
    if (owned) void connection.close().catch(() => undefined);
    throw error;
  }

  const ready = buildIndexes(runtime).then(async () => {
    for (const onReady of lifecycle.onReady) await onReady();
  });
  // Marked handled so a host that never awaits `ready` does not crash on an unhandled rejection. One line:
  // the driver's error would print its whole topology, and the host decides what happens next.
  ready.catch((error: unknown) => resolved.logger.error(startupFailure(error, connection)));

  let closed = false;
  // Object.assign over a list of sources is typed any; the features' members are declared on LocalApi.
  local = Object.assign(createLocalApi(runtime), ...instances.map((i) => i.local ?? {})) as LocalApi;
  Object.assign(router, ...instances.map((i) => i.expose ?? {}), {
    local,
    routes: dispatcher.routes,
    ready,
    attach(server: Server) {
      upgrades?.attach(server);
    },
    async close() {
      if (closed) return;
      closed = true;
      upgrades?.close();
      for (const onClose of [...lifecycle.onClose].reverse()) await onClose();
      runtime.changes.close();
      if (owned) await connection.close();
      gate.close();
      outage.close();
    },
  });
  return router;
}
