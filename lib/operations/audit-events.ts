// What the audit log hears besides stored changes (which it records at the write pipeline's seam): the
// account events of the auth feature, webhook retries, and writes the router refused. Emitters and the
// audit log are features that never import each other, so the events meet here, below both. Nothing is
// emitted unless a listener is registered: a router without an audit log pays one length check.
// Never a value: an event names who, what kind, which record and which fields, never field values,
// passwords, tokens, keys or their hashes.
import type { AuditEvent, Runtime } from './runtime';

export type { AuditEvent, AuditEventAction, AuditEventListener } from './runtime';

/** Tells the listeners (the audit log) of an event; nothing at all without one. */
export function emitAuditEvent(runtime: Pick<Runtime, 'hooks'>, event: AuditEvent | (() => AuditEvent)): void {
  const listeners = runtime.hooks.auditEvents;
  if (listeners.length === 0) return;
  const built = typeof event === 'function' ? event() : event;
  for (const listener of listeners) listener(built);
}
