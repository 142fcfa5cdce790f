// Issues the token pair of a session: a short-lived access JWT and a rotating refresh token whose
// family id is the JWT's `sid`, so one session can be ended without ending the others.
import type { AuthCollection } from './auth-collection';
import { signAccessToken } from './access-token';

/** What register, login and refresh hand out. `expiresIn` is the access token's lifetime in seconds. */
export interface SessionTokens {
  accessToken: string;
  refreshToken: string;
  expiresIn: number;
}

/** Signs an access token for a session of `userId`. */
export function signSessionToken(auth: AuthCollection, userId: string, family: string): string {
  return signAccessToken({ sub: userId, col: auth.slug, sid: family }, auth.options.jwtExpirySeconds, auth.options.jwt, auth.runtime.config.clock.now());
}

/** Starts a session (new family) for the user and returns its tokens. */
export async function startSession(auth: AuthCollection, userId: string): Promise<SessionTokens> {
  const { token, family } = await auth.refreshTokens.issue(userId, auth.options.refreshExpiryMs);
  return { accessToken: signSessionToken(auth, userId, family), refreshToken: token, expiresIn: auth.options.jwtExpirySeconds };
}
