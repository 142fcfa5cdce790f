// One change feed per router: a change stream per configured collection (and one on the globals collection)
// publishing every write, whoever made it, on the router's change bus with origin `stream`.
import { GLOBALS_COLLECTION } from '../schema/build-models';
import type { Runtime } from '../operations/runtime';
import { type CollectionWatcher, createCollectionWatcher } from './collection-watcher';
import type { WatchTarget } from './normalize-change';

export interface ChangeFeed {
  /** Opens every stream; resolves once each is open, failing and retrying, or found unsupported. */
  start(): Promise<void>;
  /** Ends every stream and timer. */
  close(): Promise<void>;
}

/** The collections a router watches: each collection on its own, every global through the one globals collection. */
export function watchTargets(runtime: Runtime): WatchTarget[] {
  const targets: WatchTarget[] = [...runtime.collections.values()].map((c) => ({
    scope: 'collection',
    slugs: [c.descriptor.slug],
    collectionName: c.model.collection.collectionName,
  }));
  if (runtime.globals.size) targets.push({ scope: 'global', slugs: [...runtime.globals.keys()], collectionName: GLOBALS_COLLECTION });
  return targets;
}

/**
 * Creates the feed (nothing runs until start). Where change streams are unavailable, only this router's own
 * writes reach the bus.
 */
export function createChangeFeed(runtime: Runtime): ChangeFeed {
  const { changes } = runtime;
  const { logger } = runtime.config;
  const targets = watchTargets(runtime);
  const watchers: CollectionWatcher[] = [];
  let unsupportedLogged = false;
  let closed = false;


  return {
    async start() {
      const db = runtime.connection.db;
      // api.close() may come before api.ready settled: then nothing must start.
      if (closed || !db || targets.length === 0) return;
      for (const target of targets) {
        watchers.push(
          createCollectionWatcher(
            db,
            target,
            {
              onDown(error, unsupported) {
                if (!unsupported || unsupportedLogged) return;
                unsupportedLogged = true;
                logger.warn(
                  `content-router: change streams are not available on this MongoDB server (${(error as Error).message}); ` +
                    'only writes made through this router invalidate caches and reach realtime clients. Use a replica set to see every write.',
                );
              },
              onChange(change) {
                if (change.kind === 'change') changes.emitChange(change.event);
                else if (change.kind === 'reset') {
                  logger.warn(`content-router: change feed reset: ${change.reason}`);
                  changes.emitReset({ scope: target.scope, slugs: [...target.slugs], reason: change.reason, timestamp: new Date() });
                }
              },
            },
            logger,
          ),
        );
      }
      await Promise.all(watchers.map((w) => w.started));
    },
    async close() {
      closed = true;
      await Promise.all(watchers.splice(0).map((w) => w.close()));
    },
  };
}
