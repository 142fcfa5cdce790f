// Forgot/reset password: a random single-use token stored hashed with an expiry (default 1 h).
// Requests answer the same for every address; a reset revokes all the user's refresh tokens.
import { ValidationError } from '../errors';
import type { RawDoc } from '../schema/to-record';
import type { AuthCollection } from './auth-collection';
import { resetPasswordEmail } from './auth-emails';
import { hashPassword } from './password-hash';
import { checkPassword } from './password-policy';
import { publishWrite } from '../operations/write/stored-change';
import { NO_MAIL, type PendingMail } from './mailer';
import { createRandomToken, hashToken } from '../util/random-token';
import { after } from '../util/clock';

/** The one answer to forgot-password, whether or not the address has an account. */
export const RESET_REQUESTED = 'If an account uses this e-mail address, we sent it a link to reset the password.';

/** Stores a reset token on the account with this address, if any; same work either way. Returns the mail to send. */
export async function requestPasswordReset(args: { auth: AuthCollection; email: string }): Promise<PendingMail> {
  const { auth, email } = args;
  const token = createRandomToken();
  const expiry = after(auth.runtime.config.clock, auth.options.resetExpiryMs);
  // One write whether or not the address exists: an unknown address matches nothing.
  const result = await auth.collection.model.updateOne(
    auth.active({ email }),
    { $set: { resetToken: hashToken(token), resetExpiry: expiry } },
    // Token bookkeeping is not an edit of the record: updatedAt stays.
    { timestamps: false },
  );
  return result.matchedCount > 0 ? () => auth.mailer.deliver(resetPasswordEmail(auth.options, email, token)) : NO_MAIL;
}

/** Sets a new password with a reset token; 400 for a weak password or an unknown, used or expired token. */
export async function resetPassword(args: { auth: AuthCollection; token: string; password: string }): Promise<void> {
  const { auth } = args;
  const broken = checkPassword(args.password, auth.options.password);
  if (broken.length) throw new ValidationError('The password does not meet the password policy.', broken);
  const password = await hashPassword(args.password, auth.options.hash);
  // Check and spend in one write, so a token cannot be used twice even by concurrent requests.
  const row = await auth.collection.model
    .findOneAndUpdate(
      auth.active({ resetToken: hashToken(args.token), resetExpiry: { $gt: auth.runtime.config.clock.now() } }),
      { $set: { password }, $unset: { resetToken: 1, resetExpiry: 1 } },
      // The stored record, published with the change so its echo on the stream is known as ours.
      { returnDocument: 'after', projection: auth.collection.projection },
    )
    .lean<RawDoc>();
  if (!row) {
    throw new ValidationError('The reset token is invalid, used or expired.', [
      { field: 'token', message: 'token is invalid, used or expired', code: 'invalid_token' },
    ]);
  }
  const userId = String(row._id);
  await Promise.all([
    auth.refreshTokens.revokeAll(userId),
    auth.failures.clear(String(row.email)),
    auth.options.revokeApiKeysOnReset ? auth.apiKeys.removeAll(userId) : undefined,
  ]);
  // Without fields: the sessions are already ended above, and the password is hidden from every reader.
  publishWrite({ runtime: auth.runtime }, auth.collection, 'update', [userId], undefined, [row]);
}
