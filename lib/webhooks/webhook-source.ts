// Where deliveries come from: a change stream per collection some endpoint wants, started after the position
// kept by the last run, so writes made while no router ran are delivered too (as far as the oplog holds them).
// Each batch of changes the server sends is handled before the next is read: each endpoint that wants a change
// (its events, its where on the record after the change) gets a row with the change's body in its view (built
// once per view), the rows are recorded in one write, and only then is the stream's position kept. Rows this
// instance recorded go straight to their endpoint's queue.
import { ContentError } from '../errors';
import type { ChangeEvent } from '../changes/change-bus';
import { type CollectionWatcher, STREAM_OPEN_TIMEOUT_MS, createCollectionWatcher } from '../changes/collection-watcher';
import { constraintTest } from '../operations/constraint-match';
import { HookError, namedHookError } from '../operations/hooks';
import type { NormalizedChange, WatchTarget } from '../changes/normalize-change';
import { callerView } from '../operations/field-view';
import { presentFor } from '../operations/present-records';
import { newRequestState } from '../operations/request-state';
import type { CollectionRuntime, OperationArgs, Runtime } from '../operations/runtime';
import { isSoftDelete } from '../operations/soft-delete-change';
import { toIsoString } from '../util/iso-date';
import { describeError, toLoggableError } from '../util/loggable-error';
import { type DeliveryQueue, LEASE_MS } from './delivery-queue';
import type { DeliveryStore, NewDelivery } from './delivery-store';
import type { ChangeType, ResolvedEndpoint, ResolvedView, ResolvedWebhooks } from './webhook-options';
import { after } from '../util/clock';

/** How often an idle stream's advancing position is kept, at most: a quiet collection's position stays fresh in the oplog. */
const IDLE_KEEP_MS = 10_000;

/** The body every attempt of one change sends, to every endpoint. */
export interface WebhookPayload {
  type: string;
  timestamp: string;
  data: { id: string; collection: string; doc?: Record<string, unknown>; updatedFields?: string[] };
}

export interface WebhookSource {
  /** Opens the streams (each from its kept position); resolves once each first open settled. */
  start(): Promise<void>;
  /** Ends the streams; the position of every change handled is kept. */
  close(): Promise<void>;
}

/** The change's key, the same on every instance that sees it: its collection and the stream's resume token. */
function eventKey(collectionName: string, token: unknown): string | undefined {
  // (The cast reads one field of a value of unknown type; the field is checked before use.)
  const data = (token as { _data?: unknown } | null)?._data;
  if (typeof data === 'string') return `${collectionName}:${data}`;
  return token === undefined || token === null ? undefined : `${collectionName}:${JSON.stringify(token)}`;
}

export function createWebhookSource(runtime: Runtime, options: ResolvedWebhooks, store: DeliveryStore, queue: DeliveryQueue): WebhookSource {
  const { logger, clock } = runtime.config;
  const watchers: CollectionWatcher[] = [];
  let closed = false;
  /** close() sets `closed` while start() awaits: a call, as control-flow narrowing cannot see that. */
  const isClosed = (): boolean => closed;

  /** Server code reading with access overridden: how wheres are tested, and bodies shaped without a view. */
  const readerOf = (collection: CollectionRuntime): OperationArgs => ({ runtime, collection, user: null, overrideAccess: true });

  /** The endpoints that get this change: they want its type, and its record after the change matches their where. */
  async function receiversOf(collection: CollectionRuntime, type: ChangeType, raw: Record<string, unknown> | undefined): Promise<ResolvedEndpoint[]> {
    const { slug } = collection.descriptor;
    const receivers: ResolvedEndpoint[] = [];
    for (const endpoint of options.endpoints) {
      if (!endpoint.wants(slug, type)) continue;
      const where = endpoint.where?.get(slug);
      if (where && !(raw && (await constraintTest(readerOf(collection), where))(raw))) continue;
      receivers.push(endpoint);
    }
    return receivers;
  }

  /**
   * The body of a change for one view: the record after it as REST renders it (none for a delete), and the
   * fields an update set that the view shows. Without a view: as server code reads it, access overridden.
   */
  async function payloadOf(collection: CollectionRuntime, event: ChangeEvent, type: ChangeType, id: string, raw: Record<string, unknown> | undefined, view: ResolvedView | undefined): Promise<WebhookPayload> {
    const { slug, fields } = collection.descriptor;
    // Each body is a read of its own: its hooks share a context of their own.
    const reader: OperationArgs = view?.user ? { runtime, collection, user: view.user, state: newRequestState() } : { ...readerOf(collection), state: newRequestState() };
    const select = view?.select?.get(slug);
    const data: WebhookPayload['data'] = { id, collection: slug };
    if (type !== 'delete' && raw) [data.doc] = await presentFor(reader, [raw], select);
    // `type`, not the event's: a soft delete is an update that is delivered as a delete, which names no fields.
    if (type === 'update' && event.fields) {
      const { unreadable } = (await callerView(reader)).of(collection);
      // Only fields this view shows: never a hidden one, nor the stored revision, nor one its user may not read.
      data.updatedFields = event.fields.filter(
        (name) => Object.hasOwn(fields, name) && !fields[name].hidden && !fields[name].writeOnly && !unreadable.has(name) && (!select || select.includes(name)),
      );
    }
    return { type: `${slug}.${type}`, timestamp: toIsoString(event.timestamp ?? clock.now()), data };
  }

  /** The rows of one change: one per endpoint that gets it, each with the body of its view (built once per view). */
  async function rowsOf(collection: CollectionRuntime, target: WatchTarget, event: ChangeEvent): Promise<NewDelivery[]> {
    const key = eventKey(target.collectionName, event.resumeToken);
    const id = event.ids[0];
    if (!key || !id) {
      // Some servers send an update without the record's id: nothing could be delivered of it.
      logger.debug(`content-router: webhooks skipped a change of "${target.collectionName}" that does not name its record`);
      return [];
    }
    const raw = event.docs?.[0];
    // As realtime tells it: a soft delete made elsewhere (a bulk write too) is an update that set deletedAt.
    const type: ChangeType = isSoftDelete(event, collection, raw) ? 'delete' : event.type;
    const receivers = await receiversOf(collection, type, raw);
    if (receivers.length === 0) return [];
    const { slug } = collection.descriptor;
    const bodies = new Map<ResolvedView | undefined, { payload: string } | { unbuilt: string }>();
    const rows: NewDelivery[] = [];
    for (const endpoint of receivers) {
      let body = bodies.get(endpoint.view);
      if (!body) bodies.set(endpoint.view, (body = await bodyOf(collection, event, type, id, raw, endpoint.view)));
      rows.push({ event: key, endpoint: endpoint.url, type: `${slug}.${type}`, collection: slug, recordId: id, ...body });
    }
    return rows;
  }

  /**
   * The body of a change as JSON, or, when a read hook fails on it, why not: the change is recorded as a failed
   * delivery naming the hook and the stream goes on (read again, it would fail again, and hold back every later
   * change of the collection). Any other failure (the database) is thrown: the change is read again.
   */
  async function bodyOf(collection: CollectionRuntime, event: ChangeEvent, type: ChangeType, id: string, raw: Record<string, unknown> | undefined, view: ResolvedView | undefined): Promise<{ payload: string } | { unbuilt: string }> {
    try {
      return { payload: JSON.stringify(await payloadOf(collection, event, type, id, raw, view)) };
    } catch (error) {
      if (!(error instanceof HookError || error instanceof ContentError)) throw error;
      const failure = namedHookError(error, 'read');
      logger.error(`content-router: webhooks could not build the body of ${collection.descriptor.slug}.${type} of record ${id}; it is recorded as a failed delivery and later changes go on:`, toLoggableError(failure));
      return { unbuilt: `the body could not be built: ${failure.message.replace(/^content-router: /, '')}` };
    }
  }

  /**
   * Records the deliveries of a batch of changes in one write (two when a queue is full); the rows this
   * instance recorded are queued at once.
   */
  async function record(collection: CollectionRuntime, target: WatchTarget, events: readonly ChangeEvent[]): Promise<void> {
    const rows: NewDelivery[] = [];
    for (const event of events) rows.push(...(await rowsOf(collection, target, event)));
    if (rows.length === 0) return;
    // Leased to this instance only where its queue has room; the rest wait for whichever instance polls first.
    const roomy = new Set(options.endpoints.filter((endpoint) => queue.hasRoom(endpoint)).map((endpoint) => endpoint.url));
    const lease = after(clock, LEASE_MS);
    const later = rows.filter((row) => !roomy.has(row.endpoint));
    const [recorded] = await Promise.all([store.record(rows.filter((row) => roomy.has(row.endpoint)), lease), store.record(later, undefined)]);
    for (const endpoint of options.endpoints) {
      // Rows without a body are recorded failed: nothing to attempt.
      const own = recorded.filter((row) => row.endpoint === endpoint.url && row.status === 'pending');
      if (own.length) queue.push(endpoint, own);
    }
    for (const url of new Set(later.map((row) => row.endpoint))) queue.backlog(url);
  }

  /**
   * Keeps a stream's position: one write at a time, the newest position waiting while one is written. The
   * position after a change is written at once (its deliveries are recorded); the stream's own progress at
   * most every IDLE_KEEP_MS, the newest of it at the latest then (or on close).
   */
  function positionKeeper(collectionName: string) {
    let writing: Promise<void> | undefined;
    let next: { token: unknown; at: Date } | undefined;
    let lastKept = -Infinity;
    let idleTimer: NodeJS.Timeout | undefined;
    const write = (position: { token: unknown; at: Date }): Promise<void> => {
      next = undefined;
      lastKept = performance.now();
      return store.keepPosition(collectionName, position.token, position.at).then(
        () => undefined,
        (error: unknown) => logger.warn(`content-router: webhooks could not keep the stream position of "${collectionName}" (a restart may send a few changes again; receivers dedupe on webhook-id):`, error),
      );
    };
    const flush = (): Promise<void> => {
      clearTimeout(idleTimer);
      idleTimer = undefined;
      if (writing || !next) return writing ?? Promise.resolve();
      writing = write(next).finally(() => {
        writing = undefined;
        void flush();
      });
      return writing;
    };
    return {
      keep(token: unknown, at: Date): void {
        next = { token, at };
        void flush();
      },
      idle(token: unknown): void {
        next = { token, at: clock.now() };
        // A pace, not a date: measured on Node's monotonic clock.
        const wait = lastKept + IDLE_KEEP_MS - performance.now();
        if (wait <= 0) return void flush();
        if (idleTimer || writing) return;
        idleTimer = setTimeout(() => void flush(), wait);
        idleTimer.unref();
      },
      async settle(): Promise<void> {
        while (writing || next) await flush();
      },
    };
  }

  const keepers: Array<{ settle(): Promise<void> }> = [];

  async function watch(collection: CollectionRuntime): Promise<CollectionWatcher> {
    const target: WatchTarget = { scope: 'collection', slugs: [collection.descriptor.slug], collectionName: collection.model.collection.collectionName };
    const kept = await store.position(target.collectionName);
    const keeper = positionKeeper(target.collectionName);
    keepers.push(keeper);
    const since = kept ? toIsoString(kept.at) : undefined;

    /**
     * A batch of the stream: resets said loudly, changes recorded, then the position kept: past the whole batch
     * (events it ignored too, so a restart does not read them again), or, before a reset, after the last change.
     */
    async function handle(changes: NormalizedChange[], position?: unknown): Promise<void> {
      for (const change of changes) {
        if (change.kind !== 'reset') continue;
        logger.error(
          `content-router: webhooks lost changes of "${target.collectionName}": ${change.reason}. Changes made ${since ? `since ${since} ` : ''}until now ` +
            'that were not yet recorded will not be delivered (the oplog no longer holds them); delivery goes on from now.',
        );
      }
      const events = changes.flatMap((change) => (change.kind === 'change' ? [change.event] : []));
      if (events.length) await record(collection, target, events);
      const last = events.at(-1);
      const reset = changes.at(-1)?.kind === 'reset';
      if (!reset && position !== undefined) keeper.keep(position, last?.timestamp ?? clock.now());
      else if (last) keeper.keep(last.resumeToken, last.timestamp ?? clock.now());
    }
    return createCollectionWatcher(
      // eslint-disable-next-line @typescript-eslint/no-non-null-assertion -- start() watches only once the connection has its db
      runtime.connection.db!,
      target,
      {
        onChange: (change: NormalizedChange) => handle([change]),
        onChanges: handle,
        onProgress: (token) => keeper.idle(token),
        onDown(error, unsupported) {
          if (unsupported) logger.error(`content-router: webhooks need change streams (a replica set); this MongoDB server has none (${describeError(error)}): nothing will be delivered.`);
          else logger.warn(`content-router: the webhooks stream of "${target.collectionName}" failed (${describeError(error)}); retrying from its last position.`);
        },
      },
      logger,
      { startAfter: kept?.token, keepTokenThroughOutages: true },
    );
  }

  return {
    async start() {
      if (closed || !runtime.connection.db) return;
      // eslint-disable-next-line @typescript-eslint/no-non-null-assertion -- the options name only collections that exist (checked at start-up)
      const collections = [...options.slugs].map((slug) => runtime.collections.get(slug)!);
      for (const collection of collections) {
        const watcher = await watch(collection);
        if (isClosed()) {
          await watcher.close();
          return;
        }
        watchers.push(watcher);
      }
      // Bounded: a server that takes the connection and never answers must not hold api.ready forever.
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, STREAM_OPEN_TIMEOUT_MS);
        timer.unref();
      });
      await Promise.race([Promise.all(watchers.map((w) => w.started)), late]);
      clearTimeout(timer);
    },
    async close() {
      closed = true;
      await Promise.all(watchers.splice(0).map((w) => w.close()));
      await Promise.all(keepers.map((k) => k.settle()));
    },
  };
}
