// One change feed per router: a change stream per configured collection (and one on the globals collection)
// publishing every write, whoever made it, on the router's change bus with origin `stream`.
import { GLOBALS_COLLECTION } from '../schema/build-models';
import type { Runtime } from '../operations/runtime';
import { describeError } from '../util/loggable-error';
import { type CollectionWatcher, STREAM_OPEN_TIMEOUT_MS, createCollectionWatcher } from '../changes/collection-watcher';
import type { WatchTarget } from '../changes/normalize-change';


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
  /** close() sets `closed` while start() awaits: a call, as control-flow narrowing cannot see that. */
  const isClosed = (): boolean => closed;
  let timer: NodeJS.Timeout | undefined;
  let stopWaiting: (() => void) | undefined;
  /**
   * Streams not open since a warning said so (start() stopped waiting for them, or they failed): an outage
   * fails every stream, again at every retry, so it is one warning and, once none is missing, one notice.
   */
  const missing = new Set<WatchTarget>();
  let warned = false;
  /** Streams that could not resume during the outage: their consumers were reset. */
  let resets = 0;

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

  function opened(target: WatchTarget): void {
    if (!missing.delete(target) || missing.size > 0 || !warned) return;
    warned = false;
    const reset = resets ? ` ${resets} of them could not resume: their caches and realtime clients were reset.` : '';
    resets = 0;
    logger.info(`content-router: the change streams are open now; writes made elsewhere reach caches and realtime clients again.${reset}`);
  }

  function failed(target: WatchTarget, error: unknown): void {
    missing.add(target);
    const what = `the change stream of "${target.collectionName}" failed (${describeError(error)})`;
    if (warned) {
      logger.debug(`content-router: ${what}; retrying.`);
      return;
    }
    warned = true;
    logger.warn(
      `content-router: ${what}; retrying. Until the change streams are open again, only writes made through this router ` +
        'invalidate caches and reach realtime clients. Further failures are logged at debug level.',
    );
  }

  return {
    async start() {
      const db = runtime.connection.db;
      // api.close() may come before api.ready settled: then nothing must start.
      if (closed || !db || targets.length === 0) return;
      const open = new Set<WatchTarget>();
      for (const target of targets) {
        watchers.push(
          createCollectionWatcher(
            db,
            target,
            {
              onOpen() {
                open.add(target);
                opened(target);
              },
              onDown(error, unsupported) {
                if (!unsupported) {
                  failed(target, error);
                  return;
                }
                if (unsupportedLogged) return;
                unsupportedLogged = true;
                logger.warn(
                  `content-router: change streams are not available on this MongoDB server (${(error as Error).message}); ` +
                    'only writes made through this router invalidate caches and reach realtime clients. Use a replica set to see every write.',
                );
              },
              onChange(change) {
                if (change.kind === 'change') changes.emitChange(change.event);
                else if (change.kind === 'reset') {
                  // During an outage the warning has said it all: the streams that cannot resume are counted.
                  if (missing.size > 0 && warned) {
                    resets += 1;
                    logger.debug(`content-router: change feed reset: ${change.reason}`);
                  } else logger.warn(`content-router: change feed reset: ${change.reason}`);
                  changes.emitReset({ scope: target.scope, slugs: [...target.slugs], reason: change.reason, timestamp: runtime.config.clock.now() });
                }
              },
            },
            logger,
            // Pre-images let realtime tell exactly whose view an update made elsewhere entered or left.
            { preImages: target.scope === 'collection' },
          ),
        );
      }
      if ((await settleWithin(Promise.all(watchers.map((w) => w.started)))) || isClosed()) return;
      const late = targets.filter((target) => !open.has(target));
      for (const target of late) missing.add(target);
      if (warned) return;
      warned = true;
      logger.warn(
        `content-router: ${late.length} of ${targets.length} change streams did not open within ${openTimeoutMs / 1000} s (the MongoDB ` +
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
