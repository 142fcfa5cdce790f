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

/**
 * The jsonwebtoken verify options shared by verifyAccessToken and the passport-jwt strategy. Expiry is not
 * among them: the router's clock decides it (readAccessClaims), and passport-jwt fixes its verify options
 * when the strategy is made, so jsonwebtoken's `clockTimestamp` could not follow a clock.
 */
export function jwtVerifyOptions(options: AccessTokenOptions): { algorithms: 'HS256'[]; ignoreExpiration: true; issuer?: string; audience?: string } {
  return {
    algorithms: ACCESS_TOKEN_ALGORITHMS,
    ignoreExpiration: true,
    ...(options.issuer === undefined ? {} : { issuer: options.issuer }),
    ...(options.audience === undefined ? {} : { audience: options.audience }),
  };
}

/** Seconds since the epoch, as JWT dates count (whole seconds, rounded down). */
export function epochSeconds(at: Date): number {
  return Math.floor(at.getTime() / 1000);
}

/** Signs an access token issued at `now` (the router's clock) that expires `expiresInSeconds` later. */
export function signAccessToken(claims: Omit<AccessClaims, 'typ'>, expiresInSeconds: number, options: AccessTokenOptions, now: Date): string {
  // jsonwebtoken counts `expiresIn` from the payload's iat when it has one, else from the system clock.
  return jwt.sign({ typ: 'access', col: claims.col, sid: claims.sid, iat: epochSeconds(now) }, options.secret, {
    algorithm: 'HS256',
    subject: claims.sub,
    expiresIn: expiresInSeconds,
    ...(options.issuer === undefined ? {} : { issuer: options.issuer }),
    ...(options.audience === undefined ? {} : { audience: options.audience }),
  });
}

/** Why a token was refused: `expired` lets clients know to refresh rather than log in again. */
export type AccessTokenFailure = 'expired' | 'invalid';

/**
 * The router's claims from a payload whose signature was verified, with its expiry (seconds since the epoch);
 * `expired` once `now` (the router's clock) has reached exp, as jsonwebtoken would say it; `invalid` when it
 * is not one of our access tokens.
 */
export function readAccessClaims(payload: unknown, now: Date): { claims: AccessClaims; exp: number } | AccessTokenFailure {
  if (typeof payload !== 'object' || payload === null) return 'invalid';
  const { sub, col, sid, typ, exp } = payload as Record<string, unknown>;
  if (typ !== 'access' || typeof sub !== 'string' || typeof col !== 'string' || typeof sid !== 'string') return 'invalid';
  // A token without exp would never expire. Ours always have it.
  if (typeof exp !== 'number') return 'invalid';
  if (epochSeconds(now) >= exp) return 'expired';
  return { claims: { sub, col, sid, typ }, exp };
}

/** Verifies signature, algorithm, expiry at `now`, issuer/audience and shape; returns the claims or the failure. */
export function verifyAccessToken(token: string, options: AccessTokenOptions, now: Date): AccessClaims | AccessTokenFailure {
  try {
    const verified = jwt.verify(token, options.secret, { ...jwtVerifyOptions(options), complete: true });
    if (hasCriticalHeader(verified.header)) return 'invalid';
    const read = readAccessClaims(verified.payload, now);
    return typeof read === 'string' ? read : read.claims;
  } catch {
    return 'invalid';
  }
}
