// The Idempotency-Key request header (IETF httpapi draft, Stripe's semantics): 1 to 255 visible ASCII
// characters, sent once. Read before the body, so a malformed key costs no upload.
import type { Request } from 'express';
import { InvalidHeaderError } from '../errors';

export const IDEMPOTENCY_KEY = 'Idempotency-Key';
const NAME = IDEMPOTENCY_KEY.toLowerCase();
export const MAX_KEY_LENGTH = 255;
/** Visible ASCII (0x21-0x7E): no space, no control character, nothing beyond ASCII. */
const VISIBLE_ASCII = /^[\x21-\x7E]+$/;

/** True when the raw headers name Idempotency-Key more than once (Node joins the values with ", "). */
function repeated(raw: readonly string[]): boolean {
  let count = 0;
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i].length === NAME.length && raw[i].toLowerCase() === NAME) count += 1;
  }
  return count > 1;
}

/** The request's key; undefined without the header; an InvalidHeaderError (400) for a malformed one. */
export function readIdempotencyKey(req: Request): string | undefined {
  const value = req.headers[NAME];
  if (value === undefined) return undefined;
  if (Array.isArray(value) || repeated(req.rawHeaders)) throw new InvalidHeaderError(IDEMPOTENCY_KEY, 'must be sent once.');
  if (value === '') throw new InvalidHeaderError(IDEMPOTENCY_KEY, 'must not be empty.');
  if (value.length > MAX_KEY_LENGTH) throw new InvalidHeaderError(IDEMPOTENCY_KEY, `must be at most ${MAX_KEY_LENGTH} characters.`);
  if (!VISIBLE_ASCII.test(value)) throw new InvalidHeaderError(IDEMPOTENCY_KEY, 'must be visible ASCII characters only (no spaces or control characters).');
  return value;
}
