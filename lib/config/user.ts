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
  /** Slug of the auth collection the user belongs to, when the package authenticated it. */
  collection?: string;
  [key: string]: unknown;
}
