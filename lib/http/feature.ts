// The one shape every feature of the router has (auth, the REST routes, uploads, cache, realtime, ...):
// it checks its own options, then, given the runtime, contributes routes, hooks and lifecycle steps.
import type { ContentConfig } from '../config/types';
import type { LocalApi } from '../local/local-api';
import type { Runtime, RuntimeHooks } from '../operations/runtime';
import type { RouteMiddleware } from './dispatch';
import type { RouteDef } from './route-table';

/** What a feature adds to a router once built. Every member is optional. */
export interface FeatureInstance {
  /** Routes it serves; they join the one route table. */
  routes?: RouteDef[];
  /** Entries appended to the runtime's hook lists, in the order features are listed. */
  hooks?: { [K in keyof RuntimeHooks]?: RuntimeHooks[K] };
  /** Handlers run before a route's own (body parsing is the table's job; this is for limits and the like). */
  middleware?: RouteMiddleware;
  /** Members added to api.local (`upload` from the uploads feature), replacing the base's placeholders. */
  local?: Partial<LocalApi>;
  /** Members added to the router contentRouter() returns (`auth` for api.auth). */
  expose?: Record<string, unknown>;
  /**
   * Called once, after every feature is created, with the final route table (every feature's routes, this
   * one's included): for features that describe the whole API, such as the OpenAPI document.
   */
  withRoutes?(table: readonly RouteDef[]): void;
  /** Part of api.ready: runs after the connection is open and the models' indexes are built. */
  ready?(): Promise<void>;
  /** Part of api.close(): stops its streams, sockets and timers. */
  close?(): void | Promise<void>;
}

export interface Feature {
  readonly name: string;
  /** Checks this feature's options; problems are named by path and reported with every other one. */
  validate?(config: ContentConfig): string[];
  /** Builds the feature on a runtime whose models are compiled; may return nothing when it has nothing to do. */
  create(runtime: Runtime): FeatureInstance | undefined;
}

/** Appends an instance's hooks to the runtime's lists. */
export function addHooks(runtime: Runtime, hooks: FeatureInstance['hooks']): void {
  if (!hooks) return;
  for (const key of Object.keys(hooks) as (keyof RuntimeHooks)[]) {
    (runtime.hooks[key] as unknown[]).push(...(hooks[key] ?? []));
  }
}
