// login: one scrypt verify whether or not the address exists, the same 401 for an unknown address and a
// wrong password, a lock after repeated failures (429), and a new session on success.
import type { Request } from 'express';
import { AccountLockedError, ForbiddenError, UnauthorizedError } from '../errors';
import type { ApiRecord, RawDoc } from '../schema/to-record';
import { emitAccountEvent } from './account-events';
import type { AuthCollection } from './auth-collection';
import { presentAccount } from './current-account';
import { normalizeEmail } from '../util/normalize-email';
import { needsRehash, verifyPassword } from './password-hash';
import { type SessionTokens, startSession } from './session-tokens';
import { writeUser } from './user-writes';

/** The login answer: the user (no hidden field) and the session tokens; `token` repeats the access token. */
export interface LoginResult extends SessionTokens {
  user: ApiRecord;
  token: string;
}

/** Logs in; throws 401 (unknown address or wrong password, alike), 429 (locked) or 403 (unverified, when required). */
export async function login(args: { auth: AuthCollection; email: string; password: string; req?: Request }): Promise<LoginResult> {
  const { auth } = args;
  const email = normalizeEmail(args.email);
  // Counted before the password is checked, so parallel guesses cannot all slip in under the limit.
  const attempt = await auth.failures.begin(email);
  if (attempt.lockedForMs > 0) {
    const locked = new AccountLockedError(attempt.lockedForMs);
    emitAccountEvent(auth, 'login.failed', { outcome: locked, req: args.req });
    // One guess too many under way at once: this one locked the address.
    if (attempt.lockedNow) emitAccountEvent(auth, 'lockout', { outcome: locked, req: args.req });
    throw locked;
  }

  let row = await auth.collection.model.findOne(auth.active({ email })).lean<RawDoc>();
  // An unknown address still costs one scrypt verify, so timing does not tell whether it exists.
  const stored = row ? row.password : await auth.dummyHash();
  const matches = await verifyPassword(args.password, stored);
  const account = row ? String(row._id) : undefined;
  if (!row || !matches) {
    const lockedNow = await auth.failures.fail(email, attempt);
    const refused = new UnauthorizedError('Invalid e-mail or password.', 'invalid_credentials');
    emitAccountEvent(auth, 'login.failed', { userId: account, outcome: refused, req: args.req });
    // This failure locked the address: the next attempts are refused until the lock ends.
    if (lockedNow) emitAccountEvent(auth, 'lockout', { userId: account, outcome: new AccountLockedError(auth.options.lockTimeMs), req: args.req });
    throw refused;
  }
  await auth.failures.clear(email);
  if (auth.options.requireVerification && row.verified !== true) {
    const unverified = new ForbiddenError('Verify your e-mail address before logging in.', 'email_not_verified');
    emitAccountEvent(auth, 'login.failed', { userId: account, outcome: unverified, req: args.req });
    throw unverified;
  }
  const userId = String(row._id);
  if (needsRehash(row.password, auth.options.hash)) {
    // The cost was changed since this hash was made: upgrade it now that the password is at hand (the update
    // hashes it). Only while the stored hash is the one verified: a password reset meanwhile is not undone.
    const condition = { password: { eq: String(row.password) } };
    if (await writeUser({ auth, flow: 'rehash-password', id: userId, data: { password: args.password }, condition, req: args.req })) {
      // The answer shows the record as now stored (its updatedAt moved).
      row = (await auth.collection.model.findOne(auth.active({ _id: row._id })).lean<RawDoc>()) ?? row;
    }
  }
  const session = await startSession(auth, userId);
  emitAccountEvent(auth, 'login', { userId, outcome: 200, req: args.req });
  // The record as the user now logged in reads it (its field read rules and read hooks).
  return { user: await presentAccount(auth, row), ...session, token: session.accessToken };
}
