// The two passport strategies, registered on a Passport instance private to one router (never the
// global one): passport-jwt for access tokens (HS256 only), passport-http-bearer for `ck_` API keys.
import { TokenExpiredError } from 'jsonwebtoken';
import passport from 'passport';
import { Strategy as BearerStrategy } from 'passport-http-bearer';
import { Strategy as JwtStrategy } from 'passport-jwt';
import type { AuthUser } from '../config/types';
import type { Clock } from '../util/clock';
import { type AccessClaims, type AccessTokenOptions, jwtVerifyOptions, readAccessClaims } from './access-token';
import { hasCriticalHeader } from './critical-header';

/** Strategy names on the private instance. */
export const JWT_STRATEGY = 'content-router-jwt';
export const API_KEY_STRATEGY = 'content-router-api-key';

export interface StrategyOptions {
  jwt: AccessTokenOptions;
  /** Decides whether an access token has expired. */
  clock: Clock;
  /** The user of verified access-token claims, or null when there is none (any more). */
  userOfClaims(claims: AccessClaims): Promise<AuthUser | null>;
  /** The user (with scopes) of a live API key, or null. */
  userOfApiKey(key: string): Promise<AuthUser | null>;
  /** Told of every access token that passed verification, with its claims and expiry (seconds). */
  onVerified?(token: string, claims: AccessClaims, exp: number): void;
}

type Done = (error: unknown, user?: AuthUser | false) => void;
/** passport-jwt's: the third argument (why it failed) reaches authenticate's callback as `info`. */
type JwtDone = (error: unknown, user?: AuthUser | false, info?: unknown) => void;

/**
 * What the strategies are run on: a stand-in carrying only the credential, so they cannot pick tokens out
 * of a body or query string, and passport's request decorations never touch the host's req.
 */
export interface StandIn {
  token: string;
  headers: { authorization: string };
  query: Record<string, never>;
  body: Record<string, never>;
}

/** A stand-in request for `token`. */
export function standIn(token: string): StandIn {
  return { token, headers: { authorization: `Bearer ${token}` }, query: {}, body: {} };
}

/** passport-jwt's extractor: the stand-in already holds the token. */
const extractToken = (req: StandIn): string => req.token;

// A database error reaches passport as an error (-> 503), never as "no user" (-> 401).
function settle(lookup: Promise<AuthUser | null>, done: Done): void {
  lookup.then((user) => done(null, user ?? false), (error: unknown) => done(error));
}

/** A new Passport instance with both strategies. */
export function createAuthPassport(options: StrategyOptions): passport.Authenticator {
  const instance = new passport.Passport();
  instance.use(
    JWT_STRATEGY,
    new JwtStrategy(
      {
        // passport-jwt hands the key to jsonwebtoken as is; its types predate KeyObject support.
        secretOrKey: options.jwt.secret as unknown as Buffer,
        jwtFromRequest: extractToken,
        passReqToCallback: true,
        // The header too, not just the payload: its `crit` decides whether the token may be used at all.
        // eslint-disable-next-line @typescript-eslint/no-deprecated -- @types/passport-jwt marks it so, but passport-jwt documents it as the way to pass jsonwebtoken's own options
        jsonWebTokenOptions: { complete: true },
        ...jwtVerifyOptions(options.jwt),
      },
      (req: StandIn, verified: { header: unknown; payload: unknown }, done: JwtDone) => {
        // Refused before onVerified, so such a token is never remembered as verified either.
        if (hasCriticalHeader(verified.header)) {
          done(null, false);
          return;
        }
        const read = readAccessClaims(verified.payload, options.clock.now());
        // The refusal jsonwebtoken would give, so the 401 says token_expired (authenticate.ts).
        if (read === 'expired') {
          // readAccessClaims answers 'expired' only for a payload with a numeric exp.
          done(null, false, new TokenExpiredError('jwt expired', new Date((verified.payload as { exp: number }).exp * 1000)));
          return;
        }
        if (read === 'invalid') {
          done(null, false);
          return;
        }
        options.onVerified?.(req.token, read.claims, read.exp);
        settle(options.userOfClaims(read.claims), done);
      },
    ),
  );
  instance.use(API_KEY_STRATEGY, new BearerStrategy((token: string, done: Done) => settle(options.userOfApiKey(token), done)));
  return instance;
}
