// An audit event (an account event, a webhook retry, a refused write) as an entry. A first mapping: who
// (auditActor), what, which record, which fields, the outcome and the request; never a value.
import type { AuditEvent } from '../operations/audit-events';
import { auditActor } from './audit-actor';
import type { AuditAction, AuditEntry } from './audit-entry';
import { auditRequest } from './request-info';

/** The entry of one event (its `id` is given when it is stored). A refused write is named by the write it refused. */
export function entryOfEvent(event: AuditEvent, at: Date): Omit<AuditEntry, 'id'> {
  const action = (event.action === 'refused' ? (event.refusedAction ?? 'update') : event.action) as AuditAction;
  return {
    at,
    action,
    actor: auditActor(event.actor),
    resource: { ...event.resource },
    ...(event.changedFields?.length && { changedFields: [...event.changedFields] }),
    outcome: { ...event.outcome },
    request: auditRequest(event.req, event.origin),
  };
}
