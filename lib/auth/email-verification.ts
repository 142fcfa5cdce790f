// E-mail verification: random single-use tokens stored hashed with an expiry; verify-email flips
// `verified` to true. Requests by e-mail address answer generically, like forgot-password.
import type { Request } from 'express';
import { NotFoundError, ValidationError } from '../errors';
import type { ApiRecord, RawDoc } from '../schema/to-record';
import { emitAccountEvent } from './account-events';
import type { AuthCollection } from './auth-collection';
import { presentAccount } from './current-account';
import { verifyEmailEmail } from './auth-emails';
import { createRandomToken, hashToken } from '../util/random-token';
import { after } from '../util/clock';
import { NO_MAIL, type PendingMail } from './mailer';
import { isObjectIdString } from '../util/object-id';
import { padForUnknownAddress, writeUser, writeUserQuietly } from './user-writes';

/** The one answer to a verification request by address, whether or not it has an unverified account. */
export const VERIFICATION_REQUESTED = 'If an unverified account uses this e-mail address, we sent it a verification link.';

/** Only an account not verified yet gets a token. */
const UNVERIFIED = { verified: { neq: true } };

/** A new verification token in the clear, and the fields that store it on the user (its digest, its expiry). */
export function newVerificationToken(auth: AuthCollection): { token: string; fields: { verificationToken: string; verificationExpiry: Date } } {
  const token = createRandomToken();
  return { token, fields: { verificationToken: hashToken(token), verificationExpiry: after(auth.runtime.config.clock, auth.options.verificationExpiryMs) } };
}

/** Stores a new verification token (hashed) on an unverified user; returns it in the clear, or undefined when none was stored. */
async function storeVerificationToken(auth: AuthCollection, userId: string, req?: Request, quietly = false): Promise<string | undefined> {
  const { token, fields } = newVerificationToken(auth);
  const write = { auth, flow: 'request-verification' as const, id: userId, data: fields, condition: UNVERIFIED, req };
  return (await (quietly ? writeUserQuietly(write) : writeUser(write))) ? token : undefined;
}

/** Sends a verification mail to the user with this id. Returns false when the address is already verified. */
export async function sendVerification(args: { auth: AuthCollection; userId: string; req?: Request }): Promise<boolean> {
  const { auth } = args;
  if (!isObjectIdString(args.userId)) throw new NotFoundError('No user with this id.');
  const row = await auth.collection.model.findOne(auth.active({ _id: args.userId }), { email: 1, verified: 1 }).lean<RawDoc>();
  if (!row) throw new NotFoundError('No user with this id.');
  if (row.verified === true) return false;
  const token = await storeVerificationToken(auth, args.userId, args.req);
  // Verified (or deleted) since it was read: nothing to send.
  if (token === undefined) return false;
  await auth.mailer.deliver(verifyEmailEmail(auth.options, String(row.email), token));
  return true;
}

/** Sends a verification mail to an unverified account with this address, if there is one. */
export async function requestVerification(args: { auth: AuthCollection; email: string; req?: Request }): Promise<PendingMail> {
  const { auth, email } = args;
  const row = await auth.collection.model.findOne(auth.active({ email, verified: { $ne: true } }), { _id: 1 }).lean<RawDoc>();
  if (!row) return padForUnknownAddress(auth).then(() => NO_MAIL);
  const token = await storeVerificationToken(auth, String(row._id), args.req, true);
  return token === undefined ? NO_MAIL : () => auth.mailer.deliver(verifyEmailEmail(auth.options, email, token));
}

/** Spends a verification token; 400 when it is unknown, used or expired. Returns the verified user. */
export async function verifyEmail(args: { auth: AuthCollection; token: string; req?: Request }): Promise<ApiRecord> {
  const { auth } = args;
  const digest = hashToken(args.token);
  const row = await auth.collection.model.findOne(auth.active({ verificationToken: digest }), { _id: 1 }).lean<RawDoc>();
  const id = row && String(row._id);
  // Checked and spent in the write itself, so a token cannot be used twice even by concurrent requests.
  const spendable = { verificationToken: { eq: digest }, verificationExpiry: { gt: auth.runtime.config.clock.now() } };
  const data = { verified: true, verificationToken: null, verificationExpiry: null };
  const verified = id && (await writeUser({ auth, flow: 'verify-email', id, data, condition: spendable, req: args.req }));
  const account = verified ? await auth.collection.model.findOne(auth.active({ _id: id }), auth.collection.projection).lean<RawDoc>() : null;
  if (!account) {
    const refused = new ValidationError('The verification token is invalid, used or expired.', [
      { field: 'token', message: 'token is invalid, used or expired', code: 'invalid_token' },
    ]);
    emitAccountEvent(auth, 'email.verify', { outcome: refused, req: args.req });
    throw refused;
  }
  emitAccountEvent(auth, 'email.verify', { userId: String(account._id), outcome: 200, req: args.req });
  // The token proves its holder is the account's user: the record as that user reads it.
  return presentAccount(auth, account, undefined, args.req);
}
