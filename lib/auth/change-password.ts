// change-password: a logged-in user sets a new password by giving the current one. Wrong guesses count
// toward the account's lockout like failed logins; success ends every session and starts a new one.
import { Types } from 'mongoose';
import { AccountLockedError, UnauthorizedError, ValidationError } from '../errors';
import { publishWrite } from '../operations/write/stored-change';
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
  // The stored record comes back to be published with the change, so its echo on the stream is known as ours.
  const changed = await auth.collection.model
    .findOneAndUpdate({ _id: row._id }, { $set: { password } }, { returnDocument: 'after', projection: auth.collection.projection })
    .lean<RawDoc>();
  // Whoever held the old password must not keep refreshing: every session ends, and the caller gets a new one.
  await auth.refreshTokens.revokeAll(userId);
  publishWrite({ runtime: auth.runtime }, auth.collection, 'update', [userId], undefined, changed ? [changed] : undefined);
  return startSession(auth, userId);
}
