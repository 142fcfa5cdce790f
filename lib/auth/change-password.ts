// change-password: a logged-in user sets a new password by giving the current one. Wrong guesses count
// toward the account's lockout like failed logins; success ends every session and starts a new one.
import type { Request } from 'express';
import { Types } from 'mongoose';
import { AccountLockedError, UnauthorizedError, ValidationError } from '../errors';
import type { RawDoc } from '../schema/to-record';
import { emitAccountEvent } from './account-events';
import type { AuthCollection } from './auth-collection';
import { verifyPassword } from './password-hash';
import { checkPassword } from './password-policy';
import { type SessionTokens, startSession } from './session-tokens';
import { writeUser } from './user-writes';

/** Verifies `currentPassword`, stores `password`, revokes every refresh token and returns a fresh session. */
export async function changePassword(args: { auth: AuthCollection; userId: string; currentPassword: string; password: string; req?: Request }): Promise<SessionTokens> {
  const { auth, userId } = args;
  const row = await auth.collection.model.findOne(auth.active({ _id: new Types.ObjectId(userId) }), { email: 1, password: 1 }).lean<RawDoc>();
  if (!row) throw new UnauthorizedError();
  const email = String(row.email);
  const attempt = await auth.failures.begin(email);
  if (attempt.lockedForMs > 0) {
    const locked = new AccountLockedError(attempt.lockedForMs);
    if (attempt.lockedNow) emitAccountEvent(auth, 'lockout', { userId, actor: { id: userId, collection: auth.slug }, outcome: locked, req: args.req });
    throw locked;
  }
  if (!(await verifyPassword(args.currentPassword, row.password))) {
    // Wrong guesses here lock the account as failed logins do: the lock is recorded, by the account's user.
    if (await auth.failures.fail(email, attempt)) {
      emitAccountEvent(auth, 'lockout', { userId, actor: { id: userId, collection: auth.slug }, outcome: new AccountLockedError(auth.options.lockTimeMs), req: args.req });
    }
    throw wrongCurrentPassword();
  }
  await auth.failures.clear(email);
  const broken = checkPassword(args.password, auth.options.password);
  if (broken.length) throw new ValidationError('The password does not meet the password policy.', broken);
  // Only while the password is still the one just verified: a reset racing this one is not overwritten.
  // The update hashes the password as it hashes a PATCH's.
  const written = await writeUser({ auth, flow: 'change-password', id: userId, data: { password: args.password }, condition: { password: { eq: String(row.password) } }, req: args.req });
  // Changed (or the user deleted) since it was verified: what was given is not the current password any more.
  if (!written) throw wrongCurrentPassword();
  // Whoever held the old password must not keep refreshing: every session ends, and the caller gets a new one.
  await auth.refreshTokens.revokeAll(userId);
  return startSession(auth, userId);
}

function wrongCurrentPassword(): ValidationError {
  return new ValidationError('The current password is not correct.', [
    { field: 'currentPassword', message: 'currentPassword is not correct', code: 'invalid_password' },
  ]);
}
