// Watches one MongoDB collection with a change stream, for as long as the router lives: publishes each
// change, resumes from the last token after an error, starts afresh (and says so) when it cannot resume.
// Shared by the change feed (caches, realtime) and webhooks, which also start from a token they kept,
// handle each change before the next is read, and keep their token through an outage.
import type { mongo } from 'mongoose';
import type { Logger } from '../config/types';
import { type NormalizedChange, type WatchTarget, normalizeChange } from './normalize-change';

/** Server errors that mean "this resume token is no good any more": resuming again cannot work. */
const RESUME_LOST_CODES = new Set([
  260, // InvalidResumeToken
  280, // ChangeStreamFatalError
  286, // ChangeStreamHistoryLost
]);

/** "Change streams are not available here" (a standalone server): retrying cannot help. */
const UNSUPPORTED_CODES = new Set([40573, 40324 /* unrecognised $changeStream stage */, 303 /* NotImplemented */, 115 /* CommandNotSupported */]);

/**
 * How long a consumer's start (and so api.ready) waits for its streams to open. A server that takes the
 * connection but never answers the stream's first read would otherwise hold api.ready for as long as the
 * driver lets it; streams still opening then keep trying.
 */
export const STREAM_OPEN_TIMEOUT_MS = 10_000;

/** How long the server may hold an empty read open; an answer much faster than this means it does not wait. */
const MAX_AWAIT_MS = 1000;
/** Pause after an empty read that came back at once (servers without awaitData), so idle polling stays cheap. */
const IDLE_POLL_MS = 100;
const RETRY_MIN_MS = 200;
const RETRY_MAX_MS = 10_000;
/** Most changes one onChanges call gets. */
const MAX_BATCH = 256;
/** Resume attempts with one token before it is given up for a fresh start. */
const RESUME_ATTEMPTS = 3;

export interface WatcherCallbacks {
  /**
   * A normalised change or a reset of this target. A promise is awaited before the next change is read; if
   * it rejects, the watcher reopens the stream after the last change handled, so this one comes again.
   */
  onChange(change: NormalizedChange): void | Promise<void>;
  /**
   * When given, called instead of onChange with every change the server sent in one batch (up to 256, a reset
   * last): a consumer that writes per change writes once per batch. Failure and retry as for onChange.
   * `position`: the stream's resume token past the batch (its last event's, ignored ones included, or the
   * server's post-batch token), for a consumer that keeps its position.
   */
  onChanges?(changes: NormalizedChange[], position: unknown): void | Promise<void>;
  /** The stream's resume point moved while no change came (the server's post-batch token): a consumer keeping its position may save it. */
  onProgress?(token: unknown): void;
  /** The stream is open on the server (first time, or again after an error). */
  onOpen?(): void;
  /** The stream failed and is being retried, or cannot run at all (`unsupported`); the watcher logs neither. */
  onDown(error: unknown, unsupported: boolean): void;
}

export interface WatcherOptions {
  /** Where to start: a resume token of an earlier run (the stream opens after it). Default: now. */
  startAfter?: unknown;
  /**
   * Keep the token through network errors and server outages, giving it up only when the server answers that
   * it cannot resume from it (the history is gone, the token is invalid). Default false: after three failed
   * resumes of any kind the stream starts afresh with a reset (a cache is rebuilt, nothing waits for it).
   */
  keepTokenThroughOutages?: boolean;
  /**
   * Ask for updates' pre-images (`fullDocumentBeforeChange: 'whenAvailable'`): MongoDB 6.0 and later send
   * them for collections that record them (`changeStreamPreAndPostImages`), and nothing for the others.
   * Older servers refuse the option, so it is asked only of a server that reports 6.0 or later. Default false.
   */
  preImages?: boolean;
}

/**
 * Whether the server is MongoDB 6.0 or later (buildInfo needs no privilege). A connection failure rejects
 * (the open is retried); a server that will not say is taken for an older one.
 */
async function isAtLeast6(db: mongo.Db): Promise<boolean> {
  try {
    const info = await db.command({ buildInfo: 1 });
    const major = Array.isArray(info.versionArray) ? Number(info.versionArray[0]) : Number.parseInt(String(info.version), 10);
    return major >= 6;
  } catch (error) {
    if (isOutage(error)) throw error;
    return false;
  }
}

export interface CollectionWatcher {
  /** Resolves once the first attempt to open the stream settled (open, or failed and retrying). */
  readonly started: Promise<void>;
  /** Closes the stream and stops every timer; resolves when the read loop has ended. */
  close(): Promise<void>;
}

function errorCode(error: unknown): number | undefined {
  // (The cast reads one field of a value of unknown type; the field is checked before use.)
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? code : undefined;
}

/** True when the server says change streams are not available (standalone mongod). */
export function isUnsupportedError(error: unknown): boolean {
  const code = errorCode(error);
  if (code !== undefined && UNSUPPORTED_CODES.has(code)) return true;
  const message = error instanceof Error ? error.message : String(error);
  return /only supported on replica sets|\$changeStream.*not supported|Unrecognized pipeline stage name: '\$changeStream'/i.test(message);
}

/** A failure of the connection rather than an answer of the server: it says nothing of the token. */
function isOutage(error: unknown): boolean {
  // (The cast reads one field of a value of unknown type; the field is checked before use.)
  const name = (error as { name?: unknown } | null)?.name;
  return typeof name === 'string' && /Network|ServerSelection|PoolCleared|NotConnected|Topology/.test(name);
}

/** A consumer's onChange failed: the change is read again, and this says nothing of the stream. */
class ConsumerError extends Error {
  constructor(readonly original: unknown) {
    super(original instanceof Error ? original.message : String(original));
  }
}

/** Starts watching `target` on `db` at once. */
export function createCollectionWatcher(
  db: mongo.Db,
  target: WatchTarget,
  callbacks: WatcherCallbacks,
  logger: Required<Logger>,
  options: WatcherOptions = {},
): CollectionWatcher {
  let closed = false;
  /** close() sets `closed` while the loop awaits: a call, as control-flow narrowing cannot see that. */
  const isClosed = (): boolean => closed;
  let stream: mongo.ChangeStream | undefined;
  let timer: NodeJS.Timeout | undefined;
  let wake: (() => void) | undefined;
  /** The loop waits for the server to open a stream: a server that never answers keeps it waiting. */
  let opening = false;
  /** Whether the server takes `fullDocumentBeforeChange`: asked once, at the first open that reaches it. */
  let preImages: boolean | undefined = options.preImages ? undefined : false;
  let markStarted!: () => void;
  const started = new Promise<void>((resolve) => {
    markStarted = resolve;
  });

  const pause = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      wake = resolve;
      timer = setTimeout(resolve, ms);
      timer.unref();
    });

  /** Tells the consumer of a reset; its failure to take it is logged, the stream goes on. */
  const reset = (change: NormalizedChange): Promise<void> =>
    Promise.resolve()
      .then(() => callbacks.onChange(change))
      .catch((error: unknown) => logger.error(`content-router: a consumer of the change stream of "${target.collectionName}" failed on a reset:`, error));

  async function readLoop(): Promise<void> {
    let token: unknown = options.startAfter;
    /** The first open of a kept token: startAfter, which also opens after an invalidate. */
    let kept = token !== undefined;
    let attemptsWithToken = 0;
    let retryMs = RETRY_MIN_MS;
    /** A stream was open since the last fresh start: a failure without a token may have lost changes. */
    let missable = false;
    while (!closed) {
      const resuming = token !== undefined;
      try {
        opening = true;
        preImages ??= await isAtLeast6(db);
        stream = db.collection(target.collectionName).watch([], {
          fullDocument: 'updateLookup',
          ...(preImages ? { fullDocumentBeforeChange: 'whenAvailable' as const } : {}),
          maxAwaitTimeMS: MAX_AWAIT_MS,
          ...(resuming ? (kept ? { startAfter: token } : { resumeAfter: token }) : {}),
        });
        // The first read runs the aggregate: only then is the stream open and no later write missed.
        let change = await stream.tryNext();
        opening = false;
        if (isClosed()) break;
        kept = false;
        missable = true;
        attemptsWithToken = 0;
        retryMs = RETRY_MIN_MS;
        callbacks.onOpen?.();
        markStarted();
        for (;;) {
          if (change) {
            const batch = [normalizeChange(change, target, db.databaseName)];
            // A consumer of batches gets what the server already sent in one go (no round trip per change).
            if (callbacks.onChanges) {
              while (batch.length < MAX_BATCH && batch[batch.length - 1].kind !== 'reset' && stream.bufferedCount() > 0) {
                const next = await stream.tryNext();
                if (!next) break;
                batch.push(normalizeChange(next, target, db.databaseName));
              }
            }
            const handled = callbacks.onChanges ? callbacks.onChanges(batch, stream.resumeToken ?? undefined) : callbacks.onChange(batch[0]);
            if (handled) await handled.catch((error: unknown) => Promise.reject(new ConsumerError(error)));
            if (batch[batch.length - 1].kind === 'reset') {
              // After a drop or rename the stream is invalidated: start afresh from now.
              token = undefined;
              break;
            }
          }
          const moved = stream.resumeToken ?? token;
          if (!change && moved !== token && moved !== undefined) callbacks.onProgress?.(moved);
          token = moved;
          // How long the server held the poll: a pace, measured on Node's monotonic clock.
          const asked = performance.now();
          change = await stream.tryNext();
          if (isClosed()) break;
          if (!change && performance.now() - asked < MAX_AWAIT_MS / 2) await pause(IDLE_POLL_MS);
          if (isClosed()) break;
        }
      } catch (error) {
        opening = false;
        if (isClosed()) break;
        if (isUnsupportedError(error)) {
          callbacks.onDown(error, true);
          markStarted();
          return;
        }
        const consumer = error instanceof ConsumerError;
        callbacks.onDown(consumer ? error.original : error, false);
        markStarted();
        const code = errorCode(error);
        const message = error instanceof Error ? error.message : String(error);
        // Neither a consumer's failure nor (when kept) an outage says the token is bad.
        const counts = !consumer && !(options.keepTokenThroughOutages && isOutage(error));
        if (token !== undefined && (RESUME_LOST_CODES.has(code ?? -1) || (counts && resuming && ++attemptsWithToken >= RESUME_ATTEMPTS))) {
          // Changes between the last event and now are gone: consumers must rebuild what they derived.
          token = undefined;
          kept = false;
          attemptsWithToken = 0;
          missable = false;
          await reset({ kind: 'reset', reason: `could not resume the change stream of "${target.collectionName}": ${message}` });
        } else if (token === undefined && missable) {
          // It was open and broke before any resume point was known: what happened meanwhile is unknown.
          missable = false;
          await reset({ kind: 'reset', reason: `the change stream of "${target.collectionName}" broke: ${message}` });
        }
        await pause(retryMs);
        retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
      } finally {
        const ending = stream;
        stream = undefined;
        await ending?.close().catch(() => undefined);
      }
    }
    markStarted();
  }

  const loop = readLoop().catch((error: unknown) => {
    logger.error(`content-router: the change stream of "${target.collectionName}" stopped:`, error);
    markStarted();
  });

  return {
    started,
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      wake?.();
      const closing = stream?.close().catch(() => undefined);
      // A read waiting for a server that does not answer may never settle: the loop then ends (and closes its
      // stream) whenever the read does, at the latest when the connection closes; close() does not wait for it.
      if (opening) return;
      await closing;
      await loop;
    },
  };
}
