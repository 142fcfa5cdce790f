// The host's req.user as access rules, hooks and handlers see it. Hosts hand over what their session
// library gives them: with passport, whatever deserializeUser returned, often a hydrated Mongoose
// document (whose fields live behind getters, so a spread loses `role`) or a lean one that still carries
// the password hash. Both become a plain object with a string id, and by default without the host's secrets.
import type { AuthUser } from './user';

type Plain = Record<string, unknown>;

/**
 * A key that names a credential: its name, ignoring case, `_` and `-`, contains one of these. Rules and
 * hooks never need them, and a hook that logs or returns its user would otherwise leak them.
 */
const SECRET_KEY = /password|passwd|secret|token|salt|hash|apikey|privatekey/;

/** True for a key of the host's user that the default mapping drops (docs/auth.md). */
export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key.toLowerCase().replace(/[-_]/g, ''));
}

/** A Mongoose document (of any copy of mongoose), told by what every document has: toObject and its internal state. */
function isDocument(value: object): value is { toObject(options?: object): Plain } {
  const candidate = value as { toObject?: unknown; $__?: unknown };
  return typeof candidate.toObject === 'function' && typeof candidate.$__ === 'object' && candidate.$__ !== null;
}

/** The user as a plain object: a Mongoose document's fields (not its internals), anything else as it is. */
export function plainUser(user: object): Plain {
  return isDocument(user) ? user.toObject({ getters: false, virtuals: false }) : (user as Plain);
}

/** The id of a user object, as a string; undefined without one. */
function idOf(user: Plain): string | undefined {
  const id = user.id ?? user._id;
  if (id === undefined || id === null) return undefined;
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a host's ids are strings, numbers or ObjectIds, each of which prints as the id
  return String(id);
}

/** The default `auth.fromRequest`: the host's `req.user`, plain, with a string `id`, its secret keys dropped. */
export function defaultHostUser(user: unknown): AuthUser | null {
  if (!user || typeof user !== 'object') return null;
  const plain = plainUser(user);
  const id = idOf(plain);
  if (id === undefined) return null;
  const kept: Plain = {};
  for (const [key, value] of Object.entries(plain)) if (!isSecretKey(key)) kept[key] = value;
  return { ...kept, id };
}

/** What a host's own `auth.fromRequest` returned, plain and with a string `id` (its choice of fields kept). */
export function mappedHostUser(user: AuthUser | null | undefined): AuthUser | null {
  if (!user) return null;
  const plain = plainUser(user);
  return { ...plain, id: idOf(plain) ?? user.id };
}
