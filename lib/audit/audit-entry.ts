// The entry's stored shape lives with the config (the `sink` option's type names it, and config/ imports no
// feature); the audit log's own files import it from here.
export type { AuditAction, AuditActor, AuditEntry } from '../config/audit-entry';
