// change-password: a logged-in user sets a new password by giving the current one. Wrong guesses count
// toward the account's lockout like failed logins; success ends every session and starts a new one.
import { Types } from 'mongoose';
import { AccountLockedError, UnauthorizedError, ValidationError } from '../errors';
import { publishWrite } from '../operations/runtime';
import type { RawDoc } from '../schema/to-record';
import type { AuthCollection } from './auth-collection';
import { hashPassword, verifyPassword } from './password-hash';
import { checkPassword } from './password-policy';
import { type SessionTokens, startSession } from './session-tokens';

/** Verifies `currentPassword`, stores `password`, revokes every refresh token and returns a fresh session. */
export async function changePassword(args: { auth: AuthCollection; userId: string; currentPassword: string; password: string }): Promise<SessionTokens> {
  const { auth, userId } = args;
  const row = await auth.collection.model.findOne(auth.active({ _id: new Types.ObjectId(userId) }), { email: 1, password: 1 }).lean<RawDoc>();
  if (!row) throw new UnauthorizedError();
  const email = String(row.email);
  const attempt = await auth.failures.begin(email);
  if (attempt.lockedForMs > 0) throw new AccountLockedError(attempt.lockedForMs);
  if (!(await verifyPassword(args.currentPassword, row.password))) {
    await auth.failures.fail(email, attempt);
    throw new ValidationError('The current password is not correct.', [
      { field: 'currentPassword', message: 'currentPassword is not correct', code: 'invalid_password' },
    ]);
  }
  await auth.failures.clear(email);
  const broken = checkPassword(args.password, auth.options.password);
  if (broken.length) throw new ValidationError('The password does not meet the password policy.', broken);
  const password = await hashPassword(args.password, auth.options.hash);
  await auth.collection.model.updateOne({ _id: row._id }, { $set: { password } });
  // Whoever held the old password must not keep refreshing: every session ends, and the caller gets a new one.
  await auth.refreshTokens.revokeAll(userId);
  publishWrite(auth.runtime, auth.collection, 'update', [userId]);
  return startSession(auth, userId);
}
