// The stored shape of one audit entry: who did what, to which record, when, and with what outcome. Never a
// value: field names only (never hidden ones), no field values, passwords, tokens, keys or their hashes.

/** The account events and webhook retries an entry records (told to the audit log as events, not stored changes). */
export type AccountEventAction =
  | 'register'
  | 'login'
  | 'login.failed'
  | 'lockout'
  | 'logout'
  | 'logout-all'
  | 'refresh.reuse'
  | 'password.reset'
  | 'email.verify'
  | 'apikey.create'
  | 'apikey.revoke'
  | 'webhook.retry';

/** What an entry records. */
export type AuditAction = 'create' | 'update' | 'delete' | 'restore' | 'publish' | 'unpublish' | 'draft' | 'schedule' | 'upload' | 'upload.delete' | AccountEventAction;

/** Who acted. `host`: the host app's own user (req.user); `system`: the router's own flow. */
export interface AuditActor {
  type: 'user' | 'apiKey' | 'host' | 'anonymous' | 'system';
  id?: string;
  collection?: string;
  apiKeyId?: string;
  scopes?: string[];
  /** A system actor's flow (`auth.login`...). */
  name?: string;
}

/** One entry as stored in `content-router.audit` (`id` is its `_id` as hex) and handed to the sink. */
export interface AuditEntry {
  id: string;
  at: Date;
  action: AuditAction;
  actor: AuditActor;
  resource: { collection?: string; global?: string; id?: string };
  /** The version the change produced (versioned collections). */
  version?: number;
  changedFields?: string[];
  outcome: { status: number; code?: string };
  request: { id?: string; method?: string; path?: string; ip?: string; userAgent?: string; origin: 'rest' | 'local' | 'schedule' | 'mcp' };
  idempotencyKey?: string;
}
