// The change feed as a feature: runs when a collection has a response cache or realtime is on, starts
// with api.ready (after the connection is open) and ends with api.close().
import type { Feature } from '../http/feature';
import { createChangeFeed } from './change-feed';

/** Whether any consumer of the feed is configured. */
function wantsFeed(config: { realtime?: unknown; collections?: ReadonlyArray<{ cache?: unknown }> }): boolean {
  return (config.realtime !== undefined && config.realtime !== false) || (config.collections ?? []).some((c) => c.cache !== undefined);
}

/** Publishes writes seen on MongoDB change streams on the router's change bus (origin `stream`). */
export const changeFeedFeature: Feature = {
  name: 'change-feed',
  create(runtime, lifecycle) {
    if (!wantsFeed(runtime.config.source)) return undefined;
    const feed = createChangeFeed(runtime);
    lifecycle.onReady.push(() => feed.start());
    lifecycle.onClose.push(() => feed.close());
    return undefined;
  },
};
