// Who a request counts against: the client (the host's keyBy, or the IP as Express sees it), and on the
// credential routes the client together with the account the body names. Shared by the rate limiter and
// the realtime connection cap, so both group a client (IPv6 by /56) the same way.
import type { Request } from 'express';
import { ipKeyGenerator } from 'express-rate-limit';
import { normalizeEmail } from '../util/normalize-email';
import { hashToken } from '../util/random-token';

/** express-rate-limit's default grouping of IPv6 clients: one /56 is usually one subscriber. */
const IPV6_SUBNET = 56;

/**
 * The key of every client without an address, together. A connection the client resets before the server
 * accepts it never has a peer address (`req.ip` is undefined for the whole request), yet its request is
 * parsed and served: it counts here, so resetting does not escape the limits. Not an IP: no real client's key.
 */
export const NO_ADDRESS_KEY = 'no-address';

export type KeyOf = (req: Request) => string;

/**
 * True when the request has no client address. A function of its own: express-rate-limit reads a key
 * function's source, and warns about one that names `req.ip` without grouping IPv6 addresses.
 */
export function hasNoAddress(req: Request): boolean {
  return req.ip === undefined;
}

/**
 * The IP as Express sees it, IPv6 grouped by /56; NO_ADDRESS_KEY without one. Node keeps a socket's peer
 * address once read, so a request whose `req.ip` was read as it arrived keeps it after its client leaves.
 */
export function ipKey(req: Request): string {
  const ip = req.ip;
  return ip === undefined ? NO_ADDRESS_KEY : ipKeyGenerator(ip, IPV6_SUBNET);
}

/**
 * The client key: keyBy's answer (a non-empty string), else the IP key. A keyBy built on the address (as
 * docs/rate-limit.md suggests) has nothing to go on for a client without one: whatever it answers or throws
 * then, the request counts under NO_ADDRESS_KEY.
 */
export function createClientKey(keyBy: ((req: Request) => string) | undefined): KeyOf {
  if (!keyBy) return ipKey;
  return (req) => {
    let key: unknown;
    try {
      key = keyBy(req);
    } catch (error) {
      if (hasNoAddress(req)) return NO_ADDRESS_KEY;
      throw error;
    }
    if (typeof key === 'string' && key !== '') return key;
    if (hasNoAddress(req)) return NO_ADDRESS_KEY;
    // A host bug, not the client's: it surfaces as a logged 500 rather than one shared bucket for all.
    throw new TypeError('security.rateLimit.keyBy must return a non-empty string');
  };
}

/**
 * The client plus the account a credential request names: the normalized `email` of the parsed JSON body,
 * hashed (the address is never a store key). Without one (reset-password carries a token), the client alone.
 */
export function createAccountKey(clientKey: KeyOf): KeyOf {
  return (req) => {
    const email: unknown = (req.body as { email?: unknown } | undefined)?.email;
    const account = typeof email === 'string' && email.trim() !== '' ? hashToken(normalizeEmail(email)) : '-';
    return `${clientKey(req)}|${account}`;
  };
}
