// Opaque credentials (refresh tokens, reset and verification tokens, API keys): 256 random bits,
// stored only as a SHA-256 digest. Unsalted is enough: the input is random, not a guessable secret.
// The same digest keys stores by e-mail (login failures, the rate limiter) so no address is kept.
import { createHash, randomBytes } from 'node:crypto';

const TOKEN_BYTES = 32;

/** A new random token, base64url, optionally prefixed (`ck_` for API keys). */
export function createRandomToken(prefix = ''): string {
  return prefix + randomBytes(TOKEN_BYTES).toString('base64url');
}

/** The digest a token is stored and looked up by (hex SHA-256). */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
