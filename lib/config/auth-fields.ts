// The fields every auth collection has, as config: validation reads them here, and the schema layer
// turns them into descriptors. Hidden ones never leave the server; the password is write-only.
import type { AuthUser, FieldConfig, Fields } from './types';

/** The built-in fields of an auth collection, `verificationExpiry` included (verification tokens expire like reset tokens). */
export const AUTH_FIELDS: Readonly<Record<string, FieldConfig>> = Object.freeze({
  email: { type: 'email', required: true, unique: true },
  password: { type: 'text', required: true, hidden: true },
  name: { type: 'text' },
  role: { type: 'select', options: ['admin', 'user'], default: 'user' },
  verified: { type: 'boolean', default: false },
  verificationToken: { type: 'text', hidden: true, index: true },
  verificationExpiry: { type: 'date', hidden: true },
  resetToken: { type: 'text', hidden: true, index: true },
  resetExpiry: { type: 'date', hidden: true },
});

/** Auth fields a host may redefine in its own `fields` (e.g. more roles, a required name). */
export const REDEFINABLE_AUTH_FIELDS: ReadonlySet<string> = new Set(['name', 'role']);

/** The role that may read and write every record of an auth collection and set role/verified. */
export const ADMIN_ROLE = 'admin';

/** True for a user with role admin (whichever collection, or the host, vouched for it). */
export function isAdmin(user: AuthUser | null | undefined): boolean {
  return user?.role === ADMIN_ROLE;
}

/** The fields of an auth collection as config (for validation of `search` and the like). */
export function withAuthFields(hostFields: Fields): Fields {
  return { ...AUTH_FIELDS, ...hostFields };
}
