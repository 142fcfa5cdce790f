// Looks a field up by the name a client (or an access function) gave: own properties only, so
// `toString` or `__proto__` are never fields, and hidden fields do not exist unless the caller is trusted.
import type { CollectionDescriptor, FieldDescriptor } from '../schema/descriptors';

/** The field `name` of `collection`, or undefined if it does not exist or is hidden (unless `includeHidden`). */
export function findField(
  collection: CollectionDescriptor,
  name: string,
  includeHidden = false,
): FieldDescriptor | undefined {
  if (!Object.hasOwn(collection.fields, name)) return undefined;
  const field = collection.fields[name];
  return field.hidden && !includeHidden ? undefined : field;
}
