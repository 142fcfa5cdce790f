// The authenticator of auth collections: a package credential (API key, else a Bearer JWT) decides, and
// a bad one is a 401 even if the host set req.user; without one it has no say and the host's user counts.
import type { Request } from 'express';
import { TokenExpiredError } from 'jsonwebtoken';
import type passport from 'passport';
import type { AuthUser } from '../config/types';
import type { Authenticator } from '../operations/runtime';
import { UnauthorizedError } from '../errors';
import { API_KEY_PREFIX } from './api-key-store';
import { API_KEY_STRATEGY, JWT_STRATEGY } from './passport-strategies';

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
  // Node keeps only the first of repeated Authorization headers; a proxy may read the last. Two, one of
  // them Bearer, are refused rather than half read. (Repeated X-API-Key headers arrive joined, and fail.)
  const raw = req.rawHeaders ?? [];
  const authorizations = raw.filter((_, i) => i % 2 === 1 && raw[i - 1].toLowerCase() === 'authorization');
  if (authorizations.length > 1 && authorizations.some((value) => bearerToken(value) !== undefined)) return true;
  const apiKey = firstHeader(req.headers['x-api-key']);
  const header = firstHeader(req.headers.authorization);
  if (apiKey === undefined || header === undefined) return false;
  const token = bearerToken(header);
  return token !== undefined && token !== apiKey.trim();
}

interface Outcome {
  user: AuthUser | false;
  info?: unknown;
}

/**
 * Runs one strategy on a stand-in request that carries only this credential: the strategies cannot pick
 * tokens out of the body or query string, and passport's request decorations never touch the host's req.
 */
function runStrategy(instance: passport.Authenticator, strategy: string, token: string): Promise<Outcome> {
  const standIn = { headers: { authorization: `Bearer ${token}` }, query: {}, body: {} };
  return new Promise((resolve, reject) => {
    const middleware = instance.authenticate(strategy, { session: false }, (error: unknown, user: AuthUser | false, info: unknown) =>
      error ? reject(error) : resolve({ user, info }),
    );
    middleware(standIn, {}, (error?: unknown) => (error ? reject(error) : resolve({ user: false })));
  });
}

function refusal(credential: Credential, info: unknown): UnauthorizedError {
  if (credential.kind === 'api-key') return new UnauthorizedError('The API key is invalid, revoked or expired.', 'invalid_api_key');
  if (info instanceof TokenExpiredError) return new UnauthorizedError('The access token has expired.', 'token_expired');
  return new UnauthorizedError('The access token is invalid.', 'invalid_token');
}

/** Creates the authenticator hook: undefined ("not mine") when the request carries no package credential. */
export function createAuthenticate(instance: passport.Authenticator): Authenticator {
  return async (req) => {
    if (hasConflictingCredentials(req)) {
      throw new UnauthorizedError('Send one credential: one X-API-Key or one Authorization: Bearer header.', 'invalid_token');
    }
    const credential = readCredential(req);
    if (!credential) return undefined;
    // A token never contains whitespace; passport-jwt would read `Bearer <jwt> anything` as the bare JWT.
    if (/\s/.test(credential.token)) throw refusal(credential, undefined);
    const strategy = credential.kind === 'api-key' ? API_KEY_STRATEGY : JWT_STRATEGY;
    const outcome = await runStrategy(instance, strategy, credential.token);
    if (outcome.user) return outcome.user;
    throw refusal(credential, outcome.info);
  };
}
