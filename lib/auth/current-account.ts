// The caller as a record of one auth collection, for the routes that act on "my account"
// (me, logout-all, send-verification, api-keys). Works for package tokens and host-set users alike.
// An account record answered to its user (me, login, verify-email) is presented as every record is.
import type { Request } from 'express';
import type { AuthUser } from '../config/types';
import { ForbiddenError, NotFoundError, UnauthorizedError } from '../errors';
import { presentFor } from '../operations/present-records';
import type { ApiRecord, RawDoc } from '../schema/to-record';
import type { AuthCollection } from './auth-collection';
import { isObjectIdString } from '../util/object-id';

export interface CurrentAccountArgs {
  auth: AuthCollection;
  user: AuthUser | null;
  /** Managing keys and sessions needs a login (access token or host session), not an API key. */
  forbidApiKeys?: boolean;
}

/** The caller's record: 401 without a user, 403 for an API key where refused, 404 when not a user of this collection. */
export async function currentAccount(args: CurrentAccountArgs): Promise<ApiRecord> {
  return args.auth.collection.serialize(await accountRow(args));
}

/** The caller's stored account (hidden fields left out at the database); fails as currentAccount does. */
export async function accountRow(args: CurrentAccountArgs): Promise<RawDoc> {
  const { auth, user } = args;
  if (!user) throw new UnauthorizedError();
  if (args.forbidApiKeys && user.scopes) {
    throw new ForbiddenError('API keys cannot manage sessions or API keys; use an access token.', 'access_token_required');
  }
  const elsewhere = user.collection !== undefined && user.collection !== auth.slug;
  if (elsewhere || !isObjectIdString(user.id)) throw new NotFoundError(`You are not a user of ${auth.slug}.`);
  const row = await auth.collection.model.findOne(auth.active({ _id: user.id }), auth.collection.projection).lean<RawDoc>();
  if (!row) throw new NotFoundError(`You are not a user of ${auth.slug}.`);
  return row;
}

/** A stored account as access rules see its user: its record (no hidden field) and its collection. */
export function accountUser(auth: AuthCollection, row: RawDoc): AuthUser {
  return { ...auth.collection.serialize(row), collection: auth.slug };
}

/**
 * An account's record as its user receives it (me; login and verify-email, whose caller becomes or proves to
 * be that user): the collection's field read rules and read hooks applied for `user`.
 */
export async function presentAccount(auth: AuthCollection, row: RawDoc, user: AuthUser = accountUser(auth, row), req?: Request): Promise<ApiRecord> {
  const [record] = await presentFor({ runtime: auth.runtime, collection: auth.collection, user, req }, [row]);
  return record;
}
