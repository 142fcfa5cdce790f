// Values shared by every request that asks for them (a parsed query, an access rule's parsed where) are
// frozen, so that no reader can change what the next one gets.

/** Freezes plain objects and arrays, leaving class instances (ObjectId, Date, RegExp) as they are. */
export function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  const proto: unknown = Object.getPrototypeOf(value);
  if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) return value;
  Object.freeze(value);
  for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  return value;
}
