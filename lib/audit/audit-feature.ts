// The audit log as a feature (docs/audit.md): a recorder at the write pipeline's seam stores one entry per
// stored change of a recorded collection, in the session that stored it (so with transactions the change and
// its entry commit or roll back together); a listener stores the account events, webhook retries and refused
// writes the other features emit, outside any transaction; each stored entry then goes to the sink, never
// awaited by the write. Every request gets an id (`X-Request-Id`). Routes read entries, none writes them.
import type { AuthUser } from '../config/types';
import type { Feature } from '../http/feature';
import { isDatabaseUnavailable } from '../http/to-problem';
import type { AuditEventListener, ChangeRecorder, StoredChange } from '../operations/runtime';
import { toLoggableError } from '../util/loggable-error';
import type { AuditEntry } from './audit-entry';
import { type ResolvedAudit, parseAuditOptions } from './audit-options';
import { boundedSink } from './audit-sink';
import { auditReadAllowed } from './audit-access';
import { type AuditPage, parseAuditQuery, readAuditPage } from './audit-query';
import { auditRoutes } from './audit-routes';
import { createAuditStore } from './audit-store';
import { entryOfChange } from './change-entry';
import { entryOfEvent } from './event-entry';
import { assignRequestId } from './request-info';

declare module '../http/feature' {
  interface RouterMembers {
    /** The audit log for server code (docs/audit.md); present only when `audit` is configured. */
    audit?: AuditApi;
  }
}

/** What `api.audit.find` takes: the parameters of `GET /audit`, as values. */
export interface AuditFindOptions {
  /** Conditions on action, actor.id, actor.type, resource.collection, resource.global, resource.id, outcome.status, at. */
  where?: Record<string, unknown>;
  /** Page size (default 50, at most 500). */
  limit?: number;
  /** A nextCursor or prevCursor of a previous page. */
  cursor?: string;
  /** Read as this user, under the read rule (401/403 as over HTTP); default: every entry (server code). */
  user?: AuthUser | null;
}

/** The audit log for server code. */
export interface AuditApi {
  /** One page of entries, newest first, in the collections' cursor envelope; a bad where is a 400 QueryError. */
  find(options?: AuditFindOptions): Promise<AuditPage>;
}

export const auditFeature: Feature<ResolvedAudit | undefined> = {
  name: 'audit',
  options: parseAuditOptions,
  create(runtime, lifecycle, options) {
    if (!options) return undefined;
    const { config } = runtime;
    const store = createAuditStore(runtime.connection);
    const sink = boundedSink(options.sink, config.logger);
    const lost = (what: string) => (error: unknown) => {
      if (isDatabaseUnavailable(error)) runtime.outage.failed('audit entry', error);
      else config.logger.error(`content-router: could not store the audit entry of ${what}:`, toLoggableError(error));
    };
    /** Entries stored for changes not yet committed: the sink hears of an entry once its change is committed. */
    const uncommitted = new WeakMap<StoredChange, AuditEntry>();

    const recordChange: ChangeRecorder = async (change, session, by) => {
      if (!options.records(change.collection.descriptor.slug)) return;
      const entry = entryOfChange(change, by, config.clock.now());
      try {
        uncommitted.set(change, await store.insert(entry, session));
      } catch (error) {
        // In a transaction the change rolls back with its entry: the write fails, nothing is unrecorded.
        if (session) throw error;
        // Without transactions the change is stored already: it stands, and the missing entry is logged.
        lost(`a ${entry.action} of ${change.collection.descriptor.slug} ${change.id}`)(error);
      }
    };
    const committed = (change: StoredChange) => {
      const entry = uncommitted.get(change);
      if (!entry) return;
      uncommitted.delete(change);
      sink(entry);
    };
    const hearEvent: AuditEventListener = (event) => {
      // A refused write of a collection the log does not record is not recorded either.
      const slug = event.action === 'refused' ? (event.resource?.collection ?? event.resource?.global) : undefined;
      if (slug !== undefined && !options.records(slug)) return;
      try {
        const entry = entryOfEvent(event, config.clock.now());
        // Outside any transaction: a refused write has none, and an account event stands on its own.
        store.insert(entry).then(sink, lost(`a ${entry.action} event`));
      } catch (error) {
        lost(`a ${event.action} event`)(error);
      }
    };

    // First of the phases' hooks: every answer a route gives carries the request's id.
    lifecycle.onRequest.push((route) =>
      route.upgrade
        ? undefined
        : (req, res, next) => {
            assignRequestId(req, res);
            next();
          },
    );
    lifecycle.onReady.push(async () => {
      await store.createIndexes(options.retentionMs);
    });
    const audit: AuditApi = {
      async find(find = {}) {
        const { user, where, limit, cursor } = find;
        const allowed = user === undefined ? undefined : await auditReadAllowed(options.read, user);
        const raw = { where, limit, cursor };
        return readAuditPage(store, parseAuditQuery(raw, config.query, allowed));
      },
    };
    return {
      routes: auditRoutes(runtime, store, options, config.logger),
      hooks: { changeStored: [recordChange], changeCommitted: [committed], auditEvents: [hearEvent] },
      expose: { audit },
    };
  },
};
