// One change feed per router: a change stream per configured collection (and one on the globals collection)
// publishing every write, whoever made it, on the router's change bus with origin `stream`.
import { GLOBALS_COLLECTION } from '../schema/build-models';
import type { Runtime } from '../operations/runtime';
import { type CollectionWatcher, createCollectionWatcher } from './collection-watcher';
import type { WatchTarget } from './normalize-change';

/**
 * How long start() (and so api.ready) waits for the streams to open. A server that takes the connection but
 * never answers the stream's first read would otherwise hold api.ready for as long as the driver lets it.
 */
export const STREAM_OPEN_TIMEOUT_MS = 10_000;

export interface ChangeFeed {
  /**
   * Opens every stream; resolves once each is open, failing and retrying, or found unsupported, or after the
   * open timeout, whichever comes first (streams still opening keep trying).
   */
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
 * Creates the feed (nothing runs until start). Where change streams are unavailable, or until they open, only
 * this router's own writes reach the bus. `openTimeoutMs` bounds start()'s wait (default STREAM_OPEN_TIMEOUT_MS).
 */
export function createChangeFeed(runtime: Runtime, options: { openTimeoutMs?: number } = {}): ChangeFeed {
  const { changes } = runtime;
  const { logger } = runtime.config;
  const openTimeoutMs = options.openTimeoutMs ?? STREAM_OPEN_TIMEOUT_MS;
  const targets = watchTargets(runtime);
  const watchers: CollectionWatcher[] = [];
  let unsupportedLogged = false;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let stopWaiting: (() => void) | undefined;
  /** Targets whose stream has not opened yet, once start() stopped waiting for them; undefined before that. */
  let late: Set<WatchTarget> | undefined;

  /** Resolves true when the streams settle, false when the timeout (or close) comes first. */
  function settleWithin(settled: Promise<unknown>): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      stopWaiting = () => resolve(false);
      timer = setTimeout(stopWaiting, openTimeoutMs);
      timer.unref();
      void settled.then(() => resolve(true));
    }).finally(() => {
      clearTimeout(timer);
      stopWaiting = undefined;
    });
  }


  return {
    async start() {
      const db = runtime.connection.db;
      // api.close() may come before api.ready settled: then nothing must start.
      if (closed || !db || targets.length === 0) return;
      const opened = new Set<WatchTarget>();
      for (const target of targets) {
        watchers.push(
          createCollectionWatcher(
            db,
            target,
            {
              onOpen() {
                opened.add(target);
                if (!late?.delete(target) || late.size > 0) return;
                late = undefined;
                logger.info('content-router: the change streams are open now; writes made elsewhere reach caches and realtime clients again.');
              },
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
      if ((await settleWithin(Promise.all(watchers.map((w) => w.started)))) || closed) return;
      late = new Set(targets.filter((target) => !opened.has(target)));
      logger.warn(
        `content-router: ${late.size} of ${targets.length} change streams did not open within ${openTimeoutMs / 1000} s (the MongoDB ` +
          'server has not answered); until they do, only writes made through this router invalidate caches and reach realtime ' +
          'clients. They keep trying.',
      );
    },
    async close() {
      closed = true;
      stopWaiting?.();
      await Promise.all(watchers.splice(0).map((w) => w.close()));
    },
  };
}
