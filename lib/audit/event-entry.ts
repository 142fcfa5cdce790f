// An audit event (an account event, a webhook retry, a refused write) as the entry the audit log stores.
// Never a value: who acted is an identity (audit-actor.ts), the request its method, path without the query
// string, address and agent (request-info.ts); the resource only its collection or global and id, as strings.
import type { AuditEvent } from '../operations/audit-events';
import { auditActor } from './audit-actor';
import type { AuditAction, AuditEntry } from './audit-entry';
import { auditRequest } from './request-info';

/** The resource of an event: only its collection or global and id, as strings. */
function resourceOf(event: AuditEvent): AuditEntry['resource'] {
  const { collection, global, id } = event.resource ?? {};
  return {
    ...(typeof collection === 'string' && { collection }),
    ...(typeof global === 'string' && { global }),
    ...(typeof id === 'string' && { id }),
  };
}

/** What an entry of `event` records: its own action, or for a refused write the write it refused. */
function actionOf(event: AuditEvent): AuditAction {
  if (event.action !== 'refused') return event.action;
  // Every emitter of a refused write names it (operations/refused-write.ts); a missing one is the router's bug.
  if (event.refusedAction === undefined) throw new Error("content-router: a refused write's audit event names no write");
  return event.refusedAction;
}

/**
 * The entry of an audit event, without its id (the store gives it). A refused write is recorded as the
 * write it was (`create`, `update`...) with the refusal's status and problem code as its outcome.
 */
export function entryOfEvent(event: AuditEvent, at: Date): Omit<AuditEntry, 'id'> {
  const changedFields = event.changedFields?.filter((field) => typeof field === 'string');
  return {
    at,
    action: actionOf(event),
    actor: auditActor(event.actor),
    resource: resourceOf(event),
    ...(changedFields && changedFields.length > 0 && { changedFields: [...changedFields] }),
    outcome: { status: event.outcome.status, ...(event.outcome.code !== undefined && { code: event.outcome.code }) },
    request: auditRequest(event.req, event.origin),
  };
}
