// One shape check shared by config, schema and auth validation (the query layer keeps its stricter
// prototype-checking isPlainObject, since it guards client input against prototype tricks).

/** True for a non-null object that is not an array: a value whose keys can be read as fields. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
