// The fields every auth collection has (SPEC §2.2), merged into its descriptor by describe-collection.
// Hidden ones never leave the server; the password is hidden but write-only (accepted, hashed, never read back).
import type { FieldConfig, Fields } from '../config/types';
import { type FieldDescriptor, describeField } from './descriptors';

/** SPEC §2.2 plus `verificationExpiry` (verification tokens expire like reset tokens). */
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

/**
 * Descriptors of the auth fields a collection gets, in record order (email, name, role, verified first),
 * leaving out the ones the host redefined in `hostFields`.
 */
export function describeAuthFields(hostFields: Fields): FieldDescriptor[] {
  const descriptors: FieldDescriptor[] = [];
  for (const [name, config] of Object.entries(AUTH_FIELDS)) {
    if (REDEFINABLE_AUTH_FIELDS.has(name) && Object.hasOwn(hostFields, name)) continue;
    const descriptor = describeField(name, config);
    descriptors.push(name === 'password' ? { ...descriptor, writeOnly: true } : descriptor);
  }
  return descriptors;
}

/** The fields of an auth collection as config (for validation of `search` and the like). */
export function withAuthFields(hostFields: Fields): Fields {
  return { ...AUTH_FIELDS, ...hostFields };
}
