// refresh, logout and logout-all: rotating refresh tokens with reuse detection, revoking one session
// (its token family) or every session of a user.
import { UnauthorizedError } from '../errors';
import type { AuthCollection } from './auth-collection';
import { type SessionTokens, signSessionToken } from './session-tokens';

const REFUSED: Record<string, string> = {
  unknown: 'The refresh token is invalid.',
  expired: 'The refresh token has expired.',
  revoked: 'The refresh token has been revoked.',
  reused: 'The refresh token was already used; its session has been ended.',
};

/** Exchanges a refresh token for a new pair; 401 for an unknown, expired, revoked or reused one. */
export async function refresh(args: { auth: AuthCollection; refreshToken: string }): Promise<SessionTokens> {
  const { auth } = args;
  const result = await auth.refreshTokens.rotate(args.refreshToken, auth.options.refreshExpiryMs);
  if (!result.ok) throw new UnauthorizedError(REFUSED[result.reason], `refresh_token_${result.reason}`);
  const exists = await auth.collection.model.exists(auth.active({ _id: result.userId }));
  if (!exists) {
    await auth.refreshTokens.revokeFamily(result.family);
    throw new UnauthorizedError('The user of this refresh token no longer exists.', 'refresh_token_unknown');
  }
  return { accessToken: signSessionToken(auth, result.userId, result.family), refreshToken: result.token, expiresIn: auth.options.jwtExpirySeconds };
}

/** Ends the session of a refresh token; 401 when it is unknown, expired or already revoked. */
export async function logout(args: { auth: AuthCollection; refreshToken: string }): Promise<void> {
  const ended = await args.auth.refreshTokens.revokeSession(args.refreshToken);
  if (!ended) throw new UnauthorizedError(REFUSED.unknown, 'refresh_token_unknown');
}

/** Ends every session of a user; returns how many were live. Access tokens already out stay valid until they expire. */
export async function logoutAll(args: { auth: AuthCollection; userId: string }): Promise<number> {
  return args.auth.refreshTokens.revokeAll(args.userId);
}
