// Access tokens: pure sign/verify of HS256 JWTs (no Express, no database). passport-jwt verifies
// requests with the same options (jwtVerifyOptions) and claim check (readAccessClaims).
import { type KeyObject, createSecretKey } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { hasCriticalHeader } from './critical-header';

/** What the router puts in an access token besides iat/exp (and iss/aud when configured). */
export interface AccessClaims {
  /** The user's id. */
  sub: string;
  /** Slug of the user's auth collection. */
  col: string;
  /** Session: the refresh-token family this token was issued with (logout of one session). */
  sid: string;
  typ: 'access';
}

export interface AccessTokenOptions {
  /** The HMAC key, made once by toSigningKey(). */
  secret: KeyObject;
  issuer?: string;
  audience?: string;
}

/**
 * The secret as a KeyObject: jsonwebtoken would otherwise try to parse a string secret as a PEM key on
 * every call.
 */
export function toSigningKey(secret: string): KeyObject {
  return createSecretKey(Buffer.from(secret, 'utf8'));
}

/**
 * Only HS256: `alg: none` and every other algorithm are refused. Typed without jsonwebtoken's types: the
 * public declarations reach this file, and a host has jsonwebtoken but not @types/jsonwebtoken.
 */
export const ACCESS_TOKEN_ALGORITHMS: 'HS256'[] = ['HS256'];

/** The jsonwebtoken verify options shared by verifyAccessToken and the passport-jwt strategy. */
export function jwtVerifyOptions(options: AccessTokenOptions): { algorithms: 'HS256'[]; issuer?: string; audience?: string } {
  return {
    algorithms: ACCESS_TOKEN_ALGORITHMS,
    ...(options.issuer === undefined ? {} : { issuer: options.issuer }),
    ...(options.audience === undefined ? {} : { audience: options.audience }),
  };
}

/** Signs an access token that expires in `expiresInSeconds`. */
export function signAccessToken(claims: Omit<AccessClaims, 'typ'>, expiresInSeconds: number, options: AccessTokenOptions): string {
  return jwt.sign({ typ: 'access', col: claims.col, sid: claims.sid }, options.secret, {
    algorithm: 'HS256',
    subject: claims.sub,
    expiresIn: expiresInSeconds,
    ...(options.issuer === undefined ? {} : { issuer: options.issuer }),
    ...(options.audience === undefined ? {} : { audience: options.audience }),
  });
}

/** The router's claims from a verified payload, or undefined when it is not one of our access tokens (exp included). */
export function readAccessClaims(payload: unknown): AccessClaims | undefined {
  if (typeof payload !== 'object' || payload === null) return undefined;
  const { sub, col, sid, typ, exp } = payload as Record<string, unknown>;
  if (typ !== 'access' || typeof sub !== 'string' || typeof col !== 'string' || typeof sid !== 'string') return undefined;
  // jsonwebtoken checks exp only when present: a token without one would never expire. Ours always have it.
  if (typeof exp !== 'number') return undefined;
  return { sub, col, sid, typ };
}

/** Why a token was refused: `expired` lets clients know to refresh rather than log in again. */
export type AccessTokenFailure = 'expired' | 'invalid';

/** Verifies signature, algorithm, expiry, issuer/audience and shape; returns the claims or the failure. */
export function verifyAccessToken(token: string, options: AccessTokenOptions): AccessClaims | AccessTokenFailure {
  try {
    const verified = jwt.verify(token, options.secret, { ...jwtVerifyOptions(options), complete: true });
    if (hasCriticalHeader(verified.header)) return 'invalid';
    return readAccessClaims(verified.payload) ?? 'invalid';
  } catch (error) {
    return error instanceof jwt.TokenExpiredError ? 'expired' : 'invalid';
  }
}
