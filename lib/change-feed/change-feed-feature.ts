// The change feed as a feature: runs when a collection has a response cache or realtime is on, starts
// with api.ready (after the connection is open) and ends with api.close().
import type { ParsedOptions } from '../config/resolve-config';
import type { ContentConfig } from '../config/types';
import type { Feature } from '../http/feature';
import { isRecord } from '../util/is-record';
import { createChangeFeed } from './change-feed';

/**
 * Whether any consumer of the feed is configured (realtime, a cached collection). It has no option of its
 * own: those features check theirs.
 */
function parseChangeFeedOptions(config: ContentConfig): ParsedOptions<boolean> {
  const collections: unknown[] = Array.isArray(config.collections) ? config.collections : [];
  const wanted = (config.realtime !== undefined && config.realtime !== false) || collections.some((c) => isRecord(c) && c.cache !== undefined);
  return { problems: [], options: wanted };
}

/** Publishes writes seen on MongoDB change streams on the router's change bus (origin `stream`). */
export const changeFeedFeature: Feature<boolean> = {
  name: 'change-feed',
  options: parseChangeFeedOptions,
  create(runtime, lifecycle, wanted) {
    if (!wanted) return undefined;
    const feed = createChangeFeed(runtime);
    lifecycle.onReady.push(() => feed.start());
    lifecycle.onClose.push(() => feed.close());
    return undefined;
  },
};
