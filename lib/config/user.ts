// Who acts: the user access rules, hooks and handlers see. Its own module, so hook and config types share it.

/** A scope an API key may carry. JWT/session users carry none and are unrestricted by scopes. */
export type Scope = 'read' | 'write' | 'admin';

/** The authenticated user as access functions and handlers see it, or null when anonymous. */
export interface AuthUser {
  id: string;
  email?: string;
  role?: string;
  /** Present only for API-key requests. */
  scopes?: Scope[];
  /** Present only for API-key requests: the key's id (never the key itself), as the audit log names it. */
  apiKeyId?: string;
  /** Slug of the auth collection the user belongs to, when the package authenticated it. */
  collection?: string;
  [key: string]: unknown;
}

/**
 * A write the router makes on its own behalf, not on a client's: auth's flows storing a password, a token's
 * digest or `verified` on a user record. It skips the collection's access rules and field write rules (the
 * flow has proved what it needs: a token, the current password), and is named so hooks, change listeners
 * and an audit log can tell whose write it was. `name` is `<feature>.<flow>`, e.g. `auth.reset-password`.
 */
export interface SystemActor {
  readonly kind: 'system';
  readonly name: string;
}

/** True for the router's own actor (a SystemActor), false for a caller's user. */
export function isSystemActor(actor: unknown): actor is SystemActor {
  return typeof actor === 'object' && actor !== null && (actor as { kind?: unknown }).kind === 'system';
}
