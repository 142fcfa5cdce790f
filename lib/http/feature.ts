// The one shape every feature of the router has (auth, the REST routes, uploads, cache, realtime, ...):
// it parses its own options once (checked and resolved in one pass), then, given the runtime, the request
// lifecycle and those options, adds its hooks to the lifecycle's phases and contributes routes, operation
// hooks and members of the router.
import type { OptionsParser } from '../config/resolve-config';
import type { LocalApi } from '../local/local-api';
import type { Runtime, RuntimeHooks } from '../operations/runtime';
import type { Lifecycle } from './lifecycle';
import type { RouteDef } from './route-table';

/**
 * Members features add to the router contentRouter() returns, by name. Each feature declares its own by
 * merging into this interface (`declare module`), beside the code that builds it: auth's `auth`, realtime's `realtime`.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a merge point: each feature adds its members by declaration merging
export interface RouterMembers {}

/** What a feature adds to a router once built. Every member is optional. */
export interface FeatureInstance {
  /** Routes it serves; they join the one route table (each passes the lifecycle's onRoute hooks). */
  routes?: RouteDef[];
  /** Entries appended to the runtime's operation hook lists, in the order features are listed. */
  hooks?: { [K in keyof RuntimeHooks]?: RuntimeHooks[K] };
  /** Members added to api.local (`upload` from the uploads feature), replacing the base's placeholders. */
  local?: Partial<LocalApi>;
  /** Members added to the router contentRouter() returns (`auth` for api.auth). */
  expose?: Partial<RouterMembers>;
}

/** A feature; `O` is what its options parser resolves its options to (undefined without one). */
export interface Feature<O = undefined> {
  readonly name: string;
  /**
   * Checks and resolves this feature's options from the host's config in one pass, at contentRouter():
   * its problems, named by path, are reported with every other one in the one ConfigError; its options
   * are kept in the resolved config and handed to create(). Nothing reads the host's config after this.
   */
  readonly options?: OptionsParser<O>;
  /**
   * Builds the feature on a runtime whose models are compiled, adding its hooks to `lifecycle` (the only
   * way it touches a request besides its own routes); may return nothing when it has nothing more to add.
   */
  create(runtime: Runtime, lifecycle: Lifecycle, options: O): FeatureInstance | undefined;
}

/** Appends an instance's hooks to the runtime's lists. */
export function addHooks(runtime: Runtime, hooks: FeatureInstance['hooks']): void {
  if (!hooks) return;
  for (const key of Object.keys(hooks) as (keyof RuntimeHooks)[]) {
    (runtime.hooks[key] as unknown[]).push(...(hooks[key] ?? []));
  }
}
