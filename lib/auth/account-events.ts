// The account events of one auth collection, told to the audit log (operations/audit-events.ts): register,
// login, a failed login, a lockout, logout, logout-all, a refresh token used twice, a password reset, an
// e-mail verification, an API key created or revoked. Each names the account (its collection and id, when
// known) and who acted: the account's user once a credential proved it (a password, a token), the caller for
// what a logged-in user does, nobody for a failure. Never the address, a password, a token or a key.
import type { Request } from 'express';
import type { AuthUser } from '../config/types';
import type { ContentError } from '../errors';
import { type AuditEventAction, emitAuditEvent } from '../operations/audit-events';
import type { AuthCollection } from './auth-collection';

export interface AccountEvent {
  /** The account the event is about, when known (a failed login for an unknown address has none). */
  userId?: string;
  /** Who acted; default: the account's user when the event succeeded, nobody when it failed. */
  actor?: AuthUser | null;
  /** The answer: a status, or the error the flow answers with. */
  outcome: number | ContentError;
  req?: Request;
}

/** Tells the audit log of an account event of `auth`'s collection; nothing is built without a listener. */
export function emitAccountEvent(auth: AuthCollection, action: AuditEventAction, event: AccountEvent): void {
  emitAuditEvent(auth.runtime, () => {
    const { userId, outcome, req } = event;
    const failed = typeof outcome !== 'number';
    const owner: AuthUser | null = userId !== undefined && !failed ? { id: userId, collection: auth.slug } : null;
    return {
      action,
      actor: event.actor !== undefined ? event.actor : owner,
      resource: { collection: auth.slug, ...(userId !== undefined && { id: userId }) },
      outcome: failed ? { status: outcome.status, code: outcome.code } : { status: outcome },
      ...(req && { req }),
    };
  });
}
