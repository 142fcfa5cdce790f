// Access tokens this router has already verified, so a client sending the same token with every request
// pays for the signature check once per token rather than once per request (an API gateway's JWT cache).
// Only tokens that passed the whole verification are kept, keyed by their whole text (signature
// included), and an entry ends at its token's own expiry. Bounded; the least recently used goes first.
import type { AccessClaims } from './access-token';

export interface VerifiedTokens {
  /** The claims of a token verified before and not yet expired, or undefined. */
  get(token: string): AccessClaims | undefined;
  /** Remembers a token that has just passed verification; `exp` is its expiry in seconds since the epoch. */
  set(token: string, claims: AccessClaims, exp: number): void;
  readonly size: number;
}

/** Most tokens kept: a few hundred KB. Past it, the least recently used token is verified again next time. */
export const MAX_VERIFIED_TOKENS = 1000;

/** Longest token kept: ours are a few hundred characters; anything longer is simply verified every time. */
const MAX_TOKEN_CHARS = 2048;

interface Entry {
  claims: AccessClaims;
  exp: number;
}

/** `now`: the router's clock, in ms since the epoch (an entry is dropped once it reaches the token's exp). */
export function createVerifiedTokens(now: () => number, max = MAX_VERIFIED_TOKENS): VerifiedTokens {
  // A Map iterates in insertion order: re-inserting on a hit makes the first key the least recently used.
  const entries = new Map<string, Entry>();
  return {
    get(token) {
      const entry = entries.get(token);
      if (!entry) return undefined;
      entries.delete(token);
      // Expired as jsonwebtoken counts it (whole seconds): that token then fails verification, with its reason.
      if (Math.floor(now() / 1000) >= entry.exp) return undefined;
      entries.set(token, entry);
      return entry.claims;
    },
    set(token, claims, exp) {
      if (token.length > MAX_TOKEN_CHARS || max <= 0) return;
      entries.delete(token);
      entries.set(token, { claims: Object.freeze({ ...claims }), exp });
      if (entries.size > max) entries.delete(entries.keys().next().value as string);
    },
    get size() {
      return entries.size;
    },
  };
}
