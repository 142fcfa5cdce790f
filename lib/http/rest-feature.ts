// The generated REST API as a feature: the routes of every collection and global. It adds no hooks;
// operations do the work, and auth and later features plug in beside it.
import { collectionRoutes } from './collection-routes';
import type { Feature } from './feature';
import { globalRoutes } from './global-routes';

/** Collections under `/<slug>`, globals under `/globals/<slug>`. */
export const restFeature: Feature = {
  name: 'rest',
  create(runtime) {
    return {
      routes: [
        ...[...runtime.collections.values()].flatMap((collection) => collectionRoutes(runtime, collection)),
        ...[...runtime.globals.values()].flatMap((global) => globalRoutes(runtime, global)),
      ],
    };
  },
};
