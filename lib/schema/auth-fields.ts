// Descriptors of the fields every auth collection has, merged into its descriptor by describe-collection.
// The password is hidden but write-only: accepted, hashed, never read back.
import { AUTH_FIELDS, REDEFINABLE_AUTH_FIELDS } from '../config/auth-fields';
import type { Fields } from '../config/types';
import { type FieldDescriptor, describeField } from './descriptors';

/**
 * Descriptors of the auth fields a collection gets, in record order (email, name, role, verified first),
 * leaving out the ones the host redefined in `hostFields`.
 */
export function describeAuthFields(hostFields: Fields): FieldDescriptor[] {
  const descriptors: FieldDescriptor[] = [];
  for (const [name, config] of Object.entries(AUTH_FIELDS)) {
    if (REDEFINABLE_AUTH_FIELDS.has(name) && Object.hasOwn(hostFields, name)) continue;
    const descriptor = describeField(name, config);
    descriptors.push(name === 'password' ? Object.freeze({ ...descriptor, writeOnly: true }) : descriptor);
  }
  return descriptors;
}
