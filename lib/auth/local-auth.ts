// api.auth: the auth operations for server code, sharing the operations the
// HTTP routes use. Bound to the first auth collection; `collection(slug)` gives the same for another.
import { UnauthorizedError } from '../errors';
import type { ApiRecord } from '../schema/to-record';
import { verifyAccessToken } from './access-token';
import type { AuthCollection } from './auth-collection';
import { InputErrors } from './auth-input';
import { sendVerification, verifyEmail } from './email-verification';
import { type LoginResult, login } from './login';
import { requestPasswordReset, resetPassword } from './password-reset';
import { type RegisterResult, register } from './register';
import { logout, logoutSession } from './sessions';

// Declared beside the member's type, which the package's entry exports: a host's compiler then sees it.
declare module '../http/feature' {
  interface RouterMembers {
    /** Server-side auth operations (register, login, logout, ...) of the first auth collection (docs/auth.md). */
    auth: LocalAuthApi;
  }
}

export interface LocalAuthApi {
  /** Registers a user; the same rules and answer as POST /<slug>/register. */
  register(email: string, password: string, name?: string): Promise<RegisterResult>;
  /** Logs in: `{ user, token }` (token: the access token), plus refreshToken, accessToken and expiresIn. */
  login(email: string, password: string): Promise<LoginResult>;
  /** Ends a session: given a refresh token, or an access token (its session `sid`). */
  logout(token: string): Promise<void>;
  /** Mails a verification link to the user with this id (nothing when already verified). */
  sendVerificationEmail(userId: string): Promise<void>;
  /** Spends a verification token and returns the now verified user. */
  verifyEmail(token: string): Promise<ApiRecord>;
  /** Mails a reset token if an account has this address; resolves the same either way. */
  requestPasswordReset(email: string): Promise<void>;
  /** Sets a new password with a reset token and ends every session of the user. */
  resetPassword(token: string, newPassword: string): Promise<void>;
  /** The same operations on another auth collection. */
  collection(slug: string): LocalAuthApi;
}

function requireStrings(values: Record<string, unknown>): void {
  const errors = new InputErrors();
  for (const name of Object.keys(values)) errors.string(values, name);
  errors.check('The arguments are not valid.');
}

function bind(auth: AuthCollection, others: (slug: string) => LocalAuthApi): LocalAuthApi {
  return {
    register: (email, password, name) => register({ auth, data: name === undefined ? { email, password } : { email, password, name } }),
    async login(email, password) {
      requireStrings({ email, password });
      return login({ auth, email, password });
    },
    async logout(token) {
      requireStrings({ token });
      // Refresh tokens are base64url (no dots); three dot-separated parts make a JWT.
      if (token.split('.').length !== 3) return logout({ auth, refreshToken: token });
      const claims = verifyAccessToken(token, auth.options.jwt, auth.runtime.config.clock.now());
      if (typeof claims === 'string') throw new UnauthorizedError('The access token is invalid or expired.', 'invalid_token');
      if (claims.col !== auth.slug) return others(claims.col).logout(token);
      // An access token ends the session it was issued with: its refresh-token family.
      await logoutSession({ auth, userId: claims.sub, family: claims.sid });
    },
    async sendVerificationEmail(userId) {
      requireStrings({ userId });
      await sendVerification({ auth, userId });
    },
    async verifyEmail(token) {
      requireStrings({ token });
      return verifyEmail({ auth, token });
    },
    async requestPasswordReset(email) {
      const errors = new InputErrors();
      const normalized = errors.email({ email });
      errors.check('The arguments are not valid.');
      await (await requestPasswordReset({ auth, email: normalized }))();
    },
    async resetPassword(token, newPassword) {
      requireStrings({ token, password: newPassword });
      await resetPassword({ auth, token, password: newPassword });
    },
    collection: others,
  };
}

/** api.auth over the router's auth collections (the first one by default); every call throws without any. */
export function createLocalAuth(collections: ReadonlyMap<string, AuthCollection>): LocalAuthApi {
  const bound = new Map<string, LocalAuthApi>();
  const forCollection = (slug: string): LocalAuthApi => {
    const auth = collections.get(slug);
    if (!auth) throw new Error(`content-router: "${slug}" is not an auth collection`);
    let api = bound.get(slug);
    if (!api) bound.set(slug, (api = bind(auth, forCollection)));
    return api;
  };
  const first = collections.keys().next();
  if (!first.done) return forCollection(first.value);
  const none = () => Promise.reject(new Error('content-router: api.auth needs a collection with auth: true'));
  return {
    register: none,
    login: none,
    logout: none,
    sendVerificationEmail: none,
    verifyEmail: none,
    requestPasswordReset: none,
    resetPassword: none,
    collection: forCollection,
  };
}
