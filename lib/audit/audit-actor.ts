// Who acted, as an entry names them: an identity (never a role, an e-mail or any other field of the user,
// which may be a value of a record, and never a credential).
import type { AuthUser, SystemActor } from '../config/user';
import { isSystemActor } from '../config/user';
import type { AuditActor } from './audit-entry';

/**
 * The entry's actor: the router's own flow (`system`, with its name), an API key's user (`apiKey`: the user's
 * id and collection, the key's id when known, its scopes), a user of an auth collection (`user`), the host's
 * own user (`host`: a user without an auth collection), or nobody (`anonymous`).
 */
export function auditActor(actor: AuthUser | SystemActor | null): AuditActor {
  if (actor === null) return { type: 'anonymous' };
  if (isSystemActor(actor)) return { type: 'system', name: actor.name };
  const identity = { id: actor.id, ...(typeof actor.collection === 'string' && { collection: actor.collection }) };
  if (typeof actor.apiKeyId === 'string' || Array.isArray(actor.scopes)) {
    return {
      type: 'apiKey',
      ...identity,
      ...(typeof actor.apiKeyId === 'string' && { apiKeyId: actor.apiKeyId }),
      ...(Array.isArray(actor.scopes) && { scopes: [...actor.scopes] }),
    };
  }
  return { type: identity.collection ? 'user' : 'host', ...identity };
}
