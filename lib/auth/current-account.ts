// The caller as a record of one auth collection, for the routes that act on "my account"
// (me, logout-all, send-verification, api-keys). Works for package tokens and host-set users alike.
import type { AuthUser } from '../config/types';
import { ForbiddenError, NotFoundError, UnauthorizedError } from '../errors';
import type { ApiRecord, RawDoc } from '../schema/to-record';
import { accountRecord } from './account-record';
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
  const { auth, user } = args;
  if (!user) throw new UnauthorizedError();
  if (args.forbidApiKeys && user.scopes) {
    throw new ForbiddenError('API keys cannot manage sessions or API keys; use an access token.', 'access_token_required');
  }
  const elsewhere = user.collection !== undefined && user.collection !== auth.slug;
  if (elsewhere || !isObjectIdString(user.id)) throw new NotFoundError(`You are not a user of ${auth.slug}.`);
  const row = await auth.collection.model.findOne(auth.active({ _id: user.id }), auth.collection.projection).lean<RawDoc>();
  if (!row) throw new NotFoundError(`You are not a user of ${auth.slug}.`);
  return accountRecord(auth, row, user);
}
