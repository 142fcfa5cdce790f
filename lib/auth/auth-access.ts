// Default access of auth collections: a user reads and updates only itself, role admin
// everything; creating and deleting records is for admins; role, verified, password and (on update) email
// are writable only by admins.
import type { AccessArgs, AccessFn, AuthUser } from '../config/types';
import type { RecordOperation } from '../operations/access';
import type { CollectionDescriptor } from '../schema/descriptors';
import { isAdmin } from '../config/auth-fields';
import { isObjectIdString } from '../util/object-id';

/** Fields of an auth collection only admins (or server code) may write. Users change passwords by reset. */
const ADMIN_ONLY_FIELDS: ReadonlySet<string> = new Set(['role', 'verified', 'password']);
/**
 * On update, the e-mail too: it is where reset mails go, so a user who could change it with nothing but an
 * access token (stolen, 15 minutes) could point it at another mailbox, reset the password and own the account.
 */
const ADMIN_ONLY_ON_UPDATE: ReadonlySet<string> = new Set([...ADMIN_ONLY_FIELDS, 'email']);
/** What a registering client may not set: it may choose its password, not its role or verified flag. */
export const REGISTER_READ_ONLY: ReadonlySet<string> = new Set(['role', 'verified']);


/** Admins: everything. Others: only the record whose id is theirs (a user id that cannot be one: nothing). */
const self: AccessFn = ({ user }: AccessArgs) => {
  if (!user) return false;
  if (isAdmin(user)) return true;
  return isObjectIdString(user.id) ? { id: { eq: user.id } } : false;
};

const adminOnly: AccessFn = ({ user }: AccessArgs) => isAdmin(user);

const DEFAULTS: Readonly<Record<RecordOperation, AccessFn>> = { read: self, update: self, create: adminOnly, delete: adminOnly };

/** runtime.defaultAccess for auth collections; undefined (the package default) for the others. */
export function authDefaultAccess(collection: CollectionDescriptor, op: RecordOperation): AccessFn | undefined {
  return collection.isAuth ? DEFAULTS[op] : undefined;
}

/** runtime.readOnlyFields: on auth collections, role, verified and password (and, on update, email) are for admins to set. */
export function authReadOnlyFields(collection: CollectionDescriptor, user: AuthUser | null, op: 'create' | 'update'): ReadonlySet<string> | undefined {
  if (!collection.isAuth || isAdmin(user)) return undefined;
  return op === 'update' ? ADMIN_ONLY_ON_UPDATE : ADMIN_ONLY_FIELDS;
}
