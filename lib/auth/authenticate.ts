// The authenticator of auth collections: a package credential (API key, else a Bearer JWT) decides, and
// a bad one is a 401 even if the host set req.user; without one it has no say and the host's user counts.
// Passport runs its strategies on a stand-in carrying only the credential (see passport-strategies).
import type { Request } from 'express';
import { TokenExpiredError } from 'jsonwebtoken';
import type passport from 'passport';
import type { AuthUser } from '../config/types';
import type { Authenticator } from '../operations/runtime';
import { UnauthorizedError } from '../errors';
import { API_KEY_PREFIX } from './api-key-store';
import type { AccessClaims } from './access-token';
import { API_KEY_STRATEGY, JWT_STRATEGY, standIn } from './passport-strategies';
import type { VerifiedTokens } from './verified-tokens';

/** A credential of the package's own, as the request presents it. */
export interface Credential {
  kind: 'api-key' | 'jwt';
  token: string;
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The token of an `Authorization: Bearer` header ('' when empty), or undefined for another scheme. */
function bearerToken(header: string): string | undefined {
  const match = /^Bearer(?:\s+([\s\S]*))?$/i.exec(header.trim());
  return match ? (match[1] ?? '').trim() : undefined;
}

/**
 * The package credential of a request: `X-API-Key`, or `Authorization: Bearer` (an API key when it starts
 * with `ck_`, else a JWT; an empty one is still presented, and fails). Undefined without either, or for
 * another scheme (Basic, ...), which belongs to the host.
 */
export function readCredential(req: Pick<Request, 'headers'>): Credential | undefined {
  const apiKey = firstHeader(req.headers['x-api-key']);
  if (apiKey !== undefined) return { kind: 'api-key', token: apiKey.trim() };
  const header = firstHeader(req.headers.authorization);
  const token = header === undefined ? undefined : bearerToken(header);
  if (token === undefined) return undefined;
  return { kind: token.startsWith(API_KEY_PREFIX) ? 'api-key' : 'jwt', token };
}

/**
 * True when X-API-Key and a different `Authorization: Bearer` credential come together, or Authorization
 * comes twice. Which one the client meant is unknowable, and using one would silently ignore the other
 * (even a bad one): refused.
 */
export function hasConflictingCredentials(req: Pick<Request, 'headers'> & Partial<Pick<Request, 'rawHeaders'>>): boolean {
  const apiKey = firstHeader(req.headers['x-api-key']);
  const header = firstHeader(req.headers.authorization);
  // Most requests carry neither: nothing to compare, and no raw header needs reading.
  if (header === undefined) return false;
  // Node keeps only the first of repeated Authorization headers; a proxy may read the last. Two, one of
  // them Bearer, are refused rather than half read. (Repeated X-API-Key headers arrive joined, and fail.)
  if (repeatedBearer(req.rawHeaders ?? [])) return true;
  if (apiKey === undefined) return false;
  const token = bearerToken(header);
  return token !== undefined && token !== apiKey.trim();
}

const AUTHORIZATION = 'authorization';

/** True when the raw headers hold more than one Authorization header and one of them is Bearer. */
function repeatedBearer(raw: readonly string[]): boolean {
  let count = 0;
  let bearer = false;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i];
    if (name.length !== AUTHORIZATION.length || name.toLowerCase() !== AUTHORIZATION) continue;
    count += 1;
    if (bearerToken(raw[i + 1]) !== undefined) bearer = true;
  }
  return count > 1 && bearer;
}

interface Outcome {
  user: AuthUser | false;
  info?: unknown;
}

/** Runs one strategy on a stand-in request that carries only this credential. */
function runStrategy(instance: passport.Authenticator, strategy: string, token: string): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const middleware = instance.authenticate(strategy, { session: false }, (error: unknown, user: AuthUser | false, info: unknown) =>
      error ? reject(error) : resolve({ user, info }),
    );
    middleware(standIn(token), {}, (error?: unknown) => (error ? reject(error) : resolve({ user: false })));
  });
}

function refusal(credential: Credential, info: unknown): UnauthorizedError {
  if (credential.kind === 'api-key') return new UnauthorizedError('The API key is invalid, revoked or expired.', 'invalid_api_key');
  if (info instanceof TokenExpiredError) return new UnauthorizedError('The access token has expired.', 'token_expired');
  return new UnauthorizedError('The access token is invalid.', 'invalid_token');
}

export interface AuthenticateOptions {
  /** The private Passport instance with both strategies. */
  passport: passport.Authenticator;
  /** Access tokens verified before: a token found there skips passport and goes straight to its user. */
  verifiedTokens: VerifiedTokens;
  /** The user of verified claims, or null (the strategy's own lookup). */
  userOfClaims(claims: AccessClaims): Promise<AuthUser | null>;
}

/** Creates the authenticator hook: it owns requests with an API key or a Bearer token (or a conflicting pair). */
export function createAuthenticate(options: AuthenticateOptions): Authenticator {
  const { passport: instance, verifiedTokens, userOfClaims } = options;
  return {
    presented: (req) => readCredential(req) !== undefined || hasConflictingCredentials(req),
    async authenticate(req) {
      if (hasConflictingCredentials(req)) {
        throw new UnauthorizedError('Send one credential: one X-API-Key or one Authorization: Bearer header.', 'invalid_token');
      }
      const credential = readCredential(req)!;
      // A token never contains whitespace; passport-jwt would read `Bearer <jwt> anything` as the bare JWT.
      if (/\s/.test(credential.token)) throw refusal(credential, undefined);
      const claims = credential.kind === 'jwt' ? verifiedTokens.get(credential.token) : undefined;
      if (claims) {
        const user = await userOfClaims(claims);
        if (!user) throw refusal(credential, undefined);
        return user;
      }
      const strategy = credential.kind === 'api-key' ? API_KEY_STRATEGY : JWT_STRATEGY;
      const outcome = await runStrategy(instance, strategy, credential.token);
      if (!outcome.user) throw refusal(credential, outcome.info);
      return outcome.user;
    },
  };
}
