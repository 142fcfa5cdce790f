// The audit log as a feature (docs/audit.md): a recorder at the write pipeline's seam stores one entry per
// stored change of a recorded collection, in the session that stored it (so with transactions the change and
// its entry commit or roll back together); a listener stores the account events, webhook retries and refused
// writes the other features emit, outside any transaction; each stored entry then goes to the sink, never
// awaited by the write. Every request gets an id (`X-Request-Id`). Routes read entries, none writes them.
import type { Feature } from '../http/feature';
import { isDatabaseUnavailable } from '../http/to-problem';
import type { AuditEventListener, ChangeRecorder, StoredChange } from '../operations/runtime';
import { toLoggableError } from '../util/loggable-error';
import type { AuditEntry } from './audit-entry';
import { type ResolvedAudit, parseAuditOptions } from './audit-options';
import { boundedSink } from './audit-sink';
import { createAuditStore } from './audit-store';
import { entryOfChange } from './change-entry';
import { entryOfEvent } from './event-entry';
import { assignRequestId } from './request-info';

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
    return {
      hooks: { changeStored: [recordChange], changeCommitted: [committed], auditEvents: [hearEvent] },
    };
  },
};
