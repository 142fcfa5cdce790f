// Forgot/reset password: a random single-use token stored hashed with an expiry (default 1 h).
// Requests answer the same for every address; a reset revokes all the user's refresh tokens.
import type { Request } from 'express';
import { ValidationError } from '../errors';
import type { RawDoc } from '../schema/to-record';
import { emitAccountEvent } from './account-events';
import type { AuthCollection } from './auth-collection';
import { resetPasswordEmail } from './auth-emails';
import { checkPassword } from './password-policy';
import { NO_MAIL, type PendingMail } from './mailer';
import { createRandomToken, hashToken } from '../util/random-token';
import { after } from '../util/clock';
import { padForUnknownAddress, writeUser, writeUserQuietly } from './user-writes';

/** The one answer to forgot-password, whether or not the address has an account. */
export const RESET_REQUESTED = 'If an account uses this e-mail address, we sent it a link to reset the password.';

/** Stores a reset token on the account with this address, if any. Returns the mail to send. */
export async function requestPasswordReset(args: { auth: AuthCollection; email: string; req?: Request }): Promise<PendingMail> {
  const { auth, email } = args;
  const row = await auth.collection.model.findOne(auth.active({ email }), { _id: 1 }).lean<RawDoc>();
  if (!row) return padForUnknownAddress(auth).then(() => NO_MAIL);
  const token = createRandomToken();
  const expiry = after(auth.runtime.config.clock, auth.options.resetExpiryMs);
  const data = { resetToken: hashToken(token), resetExpiry: expiry };
  // Still the account of this address when written: one whose address changed meanwhile gets no token.
  const written = await writeUserQuietly({ auth, flow: 'request-password-reset', id: String(row._id), data, condition: { email: { eq: email } }, req: args.req });
  return written ? () => auth.mailer.deliver(resetPasswordEmail(auth.options, email, token)) : NO_MAIL;
}

/** Sets a new password with a reset token; 400 for a weak password or an unknown, used or expired token. */
export async function resetPassword(args: { auth: AuthCollection; token: string; password: string; req?: Request }): Promise<void> {
  const { auth } = args;
  const broken = checkPassword(args.password, auth.options.password);
  if (broken.length) throw new ValidationError('The password does not meet the password policy.', broken);
  const digest = hashToken(args.token);
  const spendable = { resetToken: { eq: digest }, resetExpiry: { gt: auth.runtime.config.clock.now() } };
  const row = await auth.collection.model.findOne(auth.active({ resetToken: digest }), { _id: 1, email: 1 }).lean<RawDoc>();
  // Checked and spent in the write itself, so a token cannot be used twice even by concurrent requests.
  const data = { password: args.password, resetToken: null, resetExpiry: null };
  if (!row || !(await writeUser({ auth, flow: 'reset-password', id: String(row._id), data, condition: spendable, req: args.req }))) {
    const refused = new ValidationError('The reset token is invalid, used or expired.', [
      { field: 'token', message: 'token is invalid, used or expired', code: 'invalid_token' },
    ]);
    // A token that spends nothing is worth recording (someone guessing, or a link used twice); no account is named.
    emitAccountEvent(auth, 'password.reset', { outcome: refused, req: args.req });
    throw refused;
  }
  const userId = String(row._id);
  await Promise.all([
    auth.refreshTokens.revokeAll(userId),
    auth.failures.clear(String(row.email)),
    auth.options.revokeApiKeysOnReset ? auth.apiKeys.removeAll(userId) : undefined,
  ]);
  emitAccountEvent(auth, 'password.reset', { userId, outcome: 200, req: args.req });
}
