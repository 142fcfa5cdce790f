// Auth's writes to user records: each one a call of the update operation, the one PATCH uses, so the
// record's hooks run, its revision and updatedAt move, and its change is published once, as for any
// other write. The caller is a named system actor: no user, the collection's access and field write
// rules skipped (the flow has proved what it needs: a token, the current password), hidden fields
// writable. The credential stores (refresh tokens, API keys, login failures) are not user records and
// keep their own writes.
import type { Request } from 'express';
import { Types } from 'mongoose';
import type { SystemActor } from '../config/types';
import { NotFoundError, WriteConflictError } from '../errors';
import { update } from '../operations/update';
import { parseWhere } from '../query';
import { toLoggableError } from '../util/loggable-error';
import type { AuthCollection } from './auth-collection';

/** The flows that write a user record; the actor's name is `auth.<flow>`. */
export type UserWriteFlow =
  | 'register'
  | 'change-password'
  | 'rehash-password'
  | 'request-password-reset'
  | 'reset-password'
  | 'request-verification'
  | 'verify-email';

export interface UserWrite {
  auth: AuthCollection;
  flow: UserWriteFlow;
  /** The user's id (hex). */
  id: string;
  /** The change, as a PATCH body: hidden fields allowed, null clears a field, a password in the clear is hashed. */
  data: Record<string, unknown>;
  /**
   * A where (the query language, hidden fields allowed) the record must still match when it is written,
   * in the same database operation: a token's digest and expiry, so a token is spent once.
   */
  condition?: Record<string, unknown>;
  /** The request the flow serves, when there is one: hooks get it and share its context. */
  req?: Request;
}

/** The actor of one flow's writes. */
export function authActor(flow: UserWriteFlow): SystemActor {
  return { kind: 'system', name: `auth.${flow}` };
}

/** The actor of a login's hash upgrade: the password policy does not apply to it (the password is not new). */
export const REHASH_ACTOR: SystemActor = authActor('rehash-password');

/** True when `actor` is one of auth's own flows (they end sessions themselves where they must). */
export function isAuthFlow(actor: SystemActor | undefined): boolean {
  return actor?.kind === 'system' && actor.name.startsWith('auth.');
}

/**
 * Writes the change; false when the user is gone (deleted, soft-deleted) or no longer matches `condition`.
 * Anything else a write can fail with (a hook's refusal, the database) is thrown as the update throws it.
 */
export async function writeUser(write: UserWrite): Promise<boolean> {
  // Another writer changing the record between the read and the write (the update reads it first for its
  // hooks) is a conflict, not a verdict: the flow asks again, and the condition decides on the record as it
  // is now (a token another request spent is then a miss, as it would have been had that request come first).
  for (let attempt = 1; ; attempt++) {
    try {
      return await writeUserOnce(write);
    } catch (error) {
      if (!(error instanceof WriteConflictError) || attempt >= WRITE_ATTEMPTS) throw error;
    }
  }
}

/** How often a flow's write is tried against records other writers keep changing. */
const WRITE_ATTEMPTS = 3;

async function writeUserOnce(write: UserWrite): Promise<boolean> {
  const { auth } = write;
  const { runtime, collection } = auth;
  try {
    await update({
      runtime,
      collection,
      user: null,
      req: write.req,
      overrideAccess: true,
      // Hooks' `api` runs as the caller, who is nobody here: not with the access this write skips.
      hookAccess: false,
      trusted: true,
      actor: authActor(write.flow),
      id: write.id,
      data: write.data,
      condition: write.condition && parseWhere(write.condition, collection.descriptor, runtime.registry, { trusted: true }),
    });
    return true;
  } catch (error) {
    if (error instanceof NotFoundError) return false;
    throw error;
  }
}

/**
 * For a request by address that found no account: one database round trip that finds nothing, about what
 * the write costs a known address (without hooks), so the answer's timing tells little.
 */
export async function padForUnknownAddress(auth: AuthCollection): Promise<void> {
  await auth.collection.model.exists({ _id: new Types.ObjectId() });
}

/**
 * writeUser for a request by e-mail address (forgot-password, send-verification by address), whose answer
 * must be the same whether or not the address has an account: a write that fails (a hook refuses it, the
 * database) is logged, not thrown, and counts as no account. The log names the flow, never the address.
 */
export async function writeUserQuietly(write: UserWrite): Promise<boolean> {
  try {
    return await writeUser(write);
  } catch (error) {
    write.auth.runtime.config.logger.error(`content-router: ${authActor(write.flow).name} could not store a token on a user of "${write.auth.slug}"; no mail was sent, and the answer did not say so:`, toLoggableError(error));
    return false;
  }
}
