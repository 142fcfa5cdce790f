// The router's one channel for "something changed": every write publishes here (the operations, auth's
// flows among their callers, and the change feed for writes made elsewhere), and caches, realtime and auth
// subscribe here.
import type { Logger, SystemActor } from '../config/types';
import type { RawDoc } from '../schema/to-record';

/** A change to records of a collection, or to a global. */
export interface ChangeEvent {
  scope: 'collection' | 'global';
  /** The collection's or global's slug. */
  slug: string;
  type: 'create' | 'update' | 'delete';
  /** Record ids as stored, an ObjectId's lower-case hex, never as a request spelled them (a global's id is its slug). */
  ids: string[];
  /** Updates through the update operation: the fields it set or cleared. Absent when unknown. */
  fields?: string[];
  /** `local`: a write through this router; `stream`: a write seen on the database's change stream. */
  origin: 'local' | 'stream';
  /**
   * The stored documents after a create or update, when the publisher has them (the change stream's
   * full document, an operation's result row). Raw: hidden fields included, so consumers must serialize.
   */
  docs?: Record<string, unknown>[];
  /**
   * Updates: the stored documents just before the change, when the publisher has them (an operation that
   * read the record before writing it at that revision; the change stream's pre-image, where the collection
   * records them). Raw, as `docs`. Realtime tells by them whether a record entered or left a reader's view.
   */
  before?: Record<string, unknown>[];
  /**
   * The timestamps the write itself set, where `docs` do not show them: a soft delete's (its docs are the
   * rows before it), a stream update's from the stream's description of it (its docs are read later and
   * may show a later write). A key is absent when the write left that timestamp alone.
   */
  stamps?: WriteStamps;
  /** Stream events: the change stream's resume token (realtime clients resume from it). */
  resumeToken?: unknown;
  /** When the change happened (the stream's cluster time, or the publisher's clock). */
  timestamp?: Date;
  /**
   * Local writes the router made on its own behalf (auth's flows): which flow. Absent for a caller's write
   * and for every stream event.
   */
  actor?: SystemActor;
}

/** See ChangeEvent.stamps. `deletedAt: null` is a restore. */
export interface WriteStamps {
  updatedAt?: unknown;
  deletedAt?: unknown;
}

export type ChangeListener = (event: ChangeEvent) => void;

/** The event's documents (`docs`) by record id. */
export function rowsById(docs: readonly RawDoc[] | undefined): Map<string, RawDoc> {
  return new Map((docs ?? []).map((doc) => [String(doc._id), doc]));
}

/**
 * The change feed lost track of writes (its resume point expired, a collection was dropped or renamed):
 * anything derived from these collections or globals may be stale and should be rebuilt from the database.
 */
export interface ChangeReset {
  scope: 'collection' | 'global';
  /** The collections' or globals' slugs concerned. */
  slugs: string[];
  /** Why, for logs. */
  reason: string;
  timestamp: Date;
}

export type ResetListener = (reset: ChangeReset) => void;

export interface ChangeBus {
  /** Publishes to every listener, in subscription order; a listener that throws is logged and skipped. */
  emitChange(event: ChangeEvent): void;
  /** Subscribes; returns the unsubscribe function. */
  onChange(listener: ChangeListener): () => void;
  /** Publishes a reset of the change feed (see ChangeReset); listeners as for changes. */
  emitReset(reset: ChangeReset): void;
  /** Subscribes to resets; returns the unsubscribe function. */
  onReset(listener: ResetListener): () => void;
  /** Drops every listener (api.close). */
  close(): void;
}

/** Creates the bus of one router. */
export function createChangeBus(logger: Required<Logger>): ChangeBus {
  const listeners = new Set<ChangeListener>();
  const resetListeners = new Set<ResetListener>();
  const publish = <E>(set: ReadonlySet<(event: E) => void>, event: E): void => {
    for (const listener of set) {
      // A subscriber's bug must not turn a successful write into an error for the client.
      try {
        listener(event);
      } catch (error) {
        logger.error('content-router: a change listener failed:', error);
      }
    }
  };
  return {
    emitChange(event) {
      publish(listeners, event);
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    emitReset(reset) {
      publish(resetListeners, reset);
    },
    onReset(listener) {
      resetListeners.add(listener);
      return () => resetListeners.delete(listener);
    },
    close() {
      listeners.clear();
      resetListeners.clear();
    },
  };
}
