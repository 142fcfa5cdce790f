// A user's own record as the auth routes answer it (me, login, verify-email): through the same read steps
// as every record (read hooks, field access), read as that user, so those routes show no more and no less
// than GET /<slug>/:id shows the user.
import type { AuthUser } from '../config/types';
import { presentFor } from '../operations/present-records';
import type { ApiRecord, RawDoc } from '../schema/to-record';
import type { AuthCollection } from './auth-collection';

/** The stored row of an account as its owner receives it; `caller`: who asks (default: the account's user). */
export async function accountRecord(auth: AuthCollection, row: RawDoc, caller?: AuthUser): Promise<ApiRecord> {
  const { collection, runtime } = auth;
  if (!collection.readShaped) return collection.serialize(row);
  const user = caller ?? ({ ...collection.serialize(row), collection: auth.slug } as AuthUser);
  const [record] = await presentFor({ runtime, collection, user }, [row]);
  return record;
}
