// The generated REST API as a feature: the routes of every collection and global, and the caller's schema. It adds no hooks;
// operations do the work, and auth and later features plug in beside it.
import { collectionRoutes } from './collection-routes';
import type { Feature } from '../http/feature';
import { createQueryMemo } from './query-memo';
import { globalRoutes } from './global-routes';
import { versionRoutes } from './version-routes';
import { draftRoutes, globalDraftRoutes } from './draft-routes';
import { publishRoutes } from './publish-routes';
import { previewRoutes } from './preview-routes';
import { schemaRoute } from './schema-route';

/** Collections under `/<slug>`, globals under `/globals/<slug>`, the caller's schema at `/schema`. */
export const restFeature: Feature = {
  name: 'rest',
  create(runtime) {
    // One memo of parsed read queries per router, shared by its collections (bounded as a whole).
    const memo = createQueryMemo();
    return {
      routes: [
        ...[...runtime.collections.values()].flatMap((collection) => collectionRoutes(runtime, collection, memo)),
        ...[...runtime.globals.values()].flatMap((global) => globalRoutes(runtime, global)),
        ...[...runtime.collections.values(), ...runtime.globals.values()].flatMap((owner) => versionRoutes(runtime, owner)),
        ...[...runtime.collections.values()].flatMap((collection) => draftRoutes(runtime, collection)),
        ...[...runtime.globals.values()].flatMap((global) => globalDraftRoutes(runtime, global)),
        ...[...runtime.collections.values(), ...runtime.globals.values()].flatMap((collection) => publishRoutes(runtime, collection)),
        ...[...runtime.collections.values(), ...runtime.globals.values()].flatMap((owner) => previewRoutes(runtime, owner)),
        schemaRoute(runtime),
      ],
    };
  },
};
