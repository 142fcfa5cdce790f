// refresh, logout and logout-all: rotating refresh tokens with reuse detection, revoking one session
// (its token family) or every session of a user.
import type { Request } from 'express';
import type { AuthUser } from '../config/types';
import { UnauthorizedError } from '../errors';
import { emitAccountEvent } from './account-events';
import type { AuthCollection } from './auth-collection';
import { type SessionTokens, signSessionToken } from './session-tokens';

const REFUSED: Record<string, string> = {
  unknown: 'The refresh token is invalid.',
  expired: 'The refresh token has expired.',
  revoked: 'The refresh token has been revoked.',
  reused: 'The refresh token was already used; its session has been ended.',
};

/** Exchanges a refresh token for a new pair; 401 for an unknown, expired, revoked or reused one. */
export async function refresh(args: { auth: AuthCollection; refreshToken: string; req?: Request }): Promise<SessionTokens> {
  const { auth } = args;
  const result = await auth.refreshTokens.rotate(args.refreshToken, auth.options.refreshExpiryMs);
  if (!result.ok) {
    const refused = new UnauthorizedError(REFUSED[result.reason], `refresh_token_${result.reason}`);
    // A spent token presented again: the legitimate client or a thief holds a copy; its session was ended.
    if (result.reason === 'reused') emitAccountEvent(auth, 'refresh.reuse', { userId: result.userId, actor: null, outcome: refused, req: args.req });
    throw refused;
  }
  const exists = await auth.collection.model.exists(auth.active({ _id: result.userId }));
  if (!exists) {
    await auth.refreshTokens.revokeFamily(result.family);
    throw new UnauthorizedError('The user of this refresh token no longer exists.', 'refresh_token_unknown');
  }
  return { accessToken: signSessionToken(auth, result.userId, result.family), refreshToken: result.token, expiresIn: auth.options.jwtExpirySeconds };
}

/** Ends the session of a refresh token; 401 when it is unknown, expired or already revoked. */
export async function logout(args: { auth: AuthCollection; refreshToken: string; req?: Request }): Promise<void> {
  const ended = await args.auth.refreshTokens.revokeSession(args.refreshToken);
  if (!ended) throw new UnauthorizedError(REFUSED.unknown, 'refresh_token_unknown');
  emitAccountEvent(args.auth, 'logout', { userId: ended.userId, outcome: 200, req: args.req });
}

/** Ends the session of an access token (its refresh-token family `sid`), for the user `sub`. */
export async function logoutSession(args: { auth: AuthCollection; userId: string; family: string }): Promise<void> {
  await args.auth.refreshTokens.revokeFamily(args.family);
  emitAccountEvent(args.auth, 'logout', { userId: args.userId, outcome: 200 });
}

/** Ends every session of a user; returns how many were live. Access tokens already out stay valid until they expire. */
export async function logoutAll(args: { auth: AuthCollection; userId: string; actor?: AuthUser; req?: Request }): Promise<number> {
  const revoked = await args.auth.refreshTokens.revokeAll(args.userId);
  emitAccountEvent(args.auth, 'logout-all', { userId: args.userId, ...(args.actor && { actor: args.actor }), outcome: 200, req: args.req });
  return revoked;
}
