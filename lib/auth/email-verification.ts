// E-mail verification: random single-use tokens stored hashed with an expiry; verify-email flips
// `verified` to true. Requests by e-mail address answer generically, like forgot-password.
import { Types } from 'mongoose';
import { NotFoundError, ValidationError } from '../errors';
import type { ApiRecord, RawDoc } from '../schema/to-record';
import type { AuthCollection } from './auth-collection';
import { presentAccount } from './current-account';
import { verifyEmailEmail } from './auth-emails';
import { publishWrite } from '../operations/write/stored-change';
import { createRandomToken, hashToken } from '../util/random-token';
import { NO_MAIL, type PendingMail } from './mailer';
import { isObjectIdString } from '../util/object-id';
import { after } from '../util/clock';

/** The one answer to a verification request by address, whether or not it has an unverified account. */
export const VERIFICATION_REQUESTED = 'If an unverified account uses this e-mail address, we sent it a verification link.';

/** Stores a new verification token (hashed) on the user and returns it in the clear. */
export async function issueVerificationToken(auth: AuthCollection, userId: string): Promise<string> {
  const token = createRandomToken();
  const expiry = after(auth.runtime.config.clock, auth.options.verificationExpiryMs);
  await auth.collection.model.updateOne(
    { _id: new Types.ObjectId(userId) },
    { $set: { verificationToken: hashToken(token), verificationExpiry: expiry } },
    // Token bookkeeping is not an edit of the record: updatedAt stays.
    { timestamps: false },
  );
  return token;
}

/** Sends a verification mail to the user with this id. Returns false when the address is already verified. */
export async function sendVerification(args: { auth: AuthCollection; userId: string }): Promise<boolean> {
  const { auth } = args;
  if (!isObjectIdString(args.userId)) throw new NotFoundError('No user with this id.');
  const row = await auth.collection.model.findOne(auth.active({ _id: args.userId }), { email: 1, verified: 1 }).lean<RawDoc>();
  if (!row) throw new NotFoundError('No user with this id.');
  if (row.verified === true) return false;
  const token = await issueVerificationToken(auth, args.userId);
  await auth.mailer.deliver(verifyEmailEmail(auth.options, String(row.email), token));
  return true;
}

/** Sends a verification mail to an unverified account with this address, if there is one; same work either way. */
export async function requestVerification(args: { auth: AuthCollection; email: string }): Promise<PendingMail> {
  const { auth, email } = args;
  const token = createRandomToken();
  const expiry = after(auth.runtime.config.clock, auth.options.verificationExpiryMs);
  const result = await auth.collection.model.updateOne(
    auth.active({ email, verified: { $ne: true } }),
    { $set: { verificationToken: hashToken(token), verificationExpiry: expiry } },
    { timestamps: false },
  );
  return result.matchedCount > 0 ? () => auth.mailer.deliver(verifyEmailEmail(auth.options, email, token)) : NO_MAIL;
}

/** Spends a verification token; 400 when it is unknown, used or expired. Returns the verified user. */
export async function verifyEmail(args: { auth: AuthCollection; token: string }): Promise<ApiRecord> {
  const { auth } = args;
  const row = await auth.collection.model
    .findOneAndUpdate(
      auth.active({ verificationToken: hashToken(args.token), verificationExpiry: { $gt: auth.runtime.config.clock.now() } }),
      { $set: { verified: true }, $unset: { verificationToken: 1, verificationExpiry: 1 } },
      { returnDocument: 'after', projection: auth.collection.projection },
    )
    .lean<RawDoc>();
  if (!row) {
    throw new ValidationError('The verification token is invalid, used or expired.', [
      { field: 'token', message: 'token is invalid, used or expired', code: 'invalid_token' },
    ]);
  }
  // With the stored record, so the stream's echo of this write is known as ours.
  publishWrite({ runtime: auth.runtime }, auth.collection, 'update', [String(row._id)], ['verified'], [row]);
  // The token proves its holder is the account's user: the record as that user reads it.
  return presentAccount(auth, row);
}
