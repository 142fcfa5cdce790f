// The `crit` header parameter of a JWS (RFC 7515 §4.1.11): it lists extensions a recipient must understand
// or refuse the token. This router understands none, so any `crit` (even an empty one, itself invalid) refuses it.

/** True when a verified token's header carries `crit`: the token must then be refused as invalid. */
export function hasCriticalHeader(header: unknown): boolean {
  return typeof header === 'object' && header !== null && Object.hasOwn(header, 'crit');
}
