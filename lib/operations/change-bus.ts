// The router's one channel for "something changed": every write publishes here (operations, auth's token
// flows, and the change feed for writes made elsewhere), and caches, realtime and auth subscribe here.
import type { Logger } from '../config/types';

/** A change to records of a collection, or to a global. */
export interface ChangeEvent {
  scope: 'collection' | 'global';
  /** The collection's or global's slug. */
  slug: string;
  type: 'create' | 'update' | 'delete';
  /** Record ids (a global's id is its slug). */
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
  /** Stream events: the change stream's resume token (realtime clients resume from it). */
  resumeToken?: unknown;
  /** When the change happened (the stream's cluster time, or the publisher's clock). */
  timestamp?: Date;
}

export type ChangeListener = (event: ChangeEvent) => void;

export interface ChangeBus {
  /** Publishes to every listener, in subscription order; a listener that throws is logged and skipped. */
  emitChange(event: ChangeEvent): void;
  /** Subscribes; returns the unsubscribe function. */
  onChange(listener: ChangeListener): () => void;
  /**
   * The change feed says whether the database's change stream currently delivers the writes of a
   * collection (or global) as `stream` events. While it does, consumers that need each write once
   * (realtime) ignore the `local` duplicates of that slug; when the stream stops, local events lead again.
   */
  setStreamed(slug: string, streamed: boolean): void;
  /** True while the change feed delivers this slug's writes as `stream` events. */
  isStreamed(slug: string): boolean;
  /** Drops every listener (api.close). */
  close(): void;
}

/** Creates the bus of one router. */
export function createChangeBus(logger: Required<Logger>): ChangeBus {
  const listeners = new Set<ChangeListener>();
  const streamed = new Set<string>();
  return {
    emitChange(event) {
      for (const listener of listeners) {
        // A subscriber's bug must not turn a successful write into an error for the client.
        try {
          listener(event);
        } catch (error) {
          logger.error('content-router: a change listener failed:', error);
        }
      }
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    setStreamed(slug, on) {
      if (on) streamed.add(slug);
      else streamed.delete(slug);
    },
    isStreamed(slug) {
      return streamed.has(slug);
    },
    close() {
      listeners.clear();
      streamed.clear();
    },
  };
}
