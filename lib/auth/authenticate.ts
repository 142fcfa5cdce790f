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

/**
 * A credential of the package's own, as the request presents it; `malformed` for an Authorization value
 * that claims the Bearer scheme but is not `Bearer <token>` (it is still the package's, and fails).
 */
export type Credential = { kind: 'api-key' | 'jwt'; token: string } | { kind: 'malformed' };

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** Spaces and tabs: the only whitespace HTTP allows around and after an auth scheme (RFC 9110). */
const HTTP_SPACE = /^[ \t]+|[ \t]+$/g;
const BEARER = /^bearer(?:[ \t]+([\s\S]*))?$/i;

/**
 * The credential of an Authorization value whose scheme starts with `bearer` (any case), or undefined
 * for another scheme (Basic, Token, JWT, ...), which belongs to the host. `Bearer<jwt>`, `Bearer:<jwt>` or
 * a non-HTTP space after the scheme is malformed, never the host's: a client that sends one means ours.
 */
function bearerCredential(header: string): Credential | undefined {
  const value = header.replace(HTTP_SPACE, '');
  if (!/^bearer/i.test(value)) return undefined;
  const match = BEARER.exec(value);
  if (!match) return { kind: 'malformed' };
  // An API key when it starts with `ck_`, else a JWT; an empty one is still presented, and fails.
  const [, token = ''] = match;
  return { kind: token.startsWith(API_KEY_PREFIX) ? 'api-key' : 'jwt', token };
}

/**
 * The package credential of a request: `X-API-Key`, or an Authorization value of the Bearer scheme
 * (see bearerCredential). Undefined without either, or for another scheme, which belongs to the host.
 */
export function readCredential(req: Pick<Request, 'headers'>): Credential | undefined {
  const apiKey = firstHeader(req.headers['x-api-key']);
  if (apiKey !== undefined) return { kind: 'api-key', token: apiKey.trim() };
  const header = firstHeader(req.headers.authorization);
  return header === undefined ? undefined : bearerCredential(header);
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
  const bearer = bearerCredential(header);
  return bearer !== undefined && (bearer.kind === 'malformed' || bearer.token !== apiKey.trim());
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
    if (bearerCredential(raw[i + 1]) !== undefined) bearer = true;
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
    // Passport's errors are passed on as they came.
    const fail = (error: unknown) => {
      reject(error);
    };
    // passport types what authenticate() returns as any; with a callback it is this middleware.
    const middleware = instance.authenticate(strategy, { session: false }, (error: unknown, user: AuthUser | false, info: unknown) =>
      error ? fail(error) : resolve({ user, info }),
    ) as (req: ReturnType<typeof standIn>, res: object, next: (error?: unknown) => void) => void;
    middleware(standIn(token), {}, (error?: unknown) => (error ? fail(error) : resolve({ user: false })));
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
  userOfClaims: (claims: AccessClaims) => Promise<AuthUser | null>;
}

/** Creates the authenticator hook: it owns requests with an API key or a Bearer-scheme header (or a conflicting pair). */
export function createAuthenticate(options: AuthenticateOptions): Authenticator {
  const { passport: instance, verifiedTokens, userOfClaims } = options;
  return {
    presented: (req) => readCredential(req) !== undefined || hasConflictingCredentials(req),
    async authenticate(req) {
      if (hasConflictingCredentials(req)) {
        throw new UnauthorizedError('Send one credential: one X-API-Key or one Authorization: Bearer header.', 'invalid_token');
      }
      const credential = readCredential(req);
      if (credential === undefined) throw new Error('content-router: authenticate ran on a request that presented no credential');
      if (credential.kind === 'malformed') throw refusal(credential, undefined);
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
