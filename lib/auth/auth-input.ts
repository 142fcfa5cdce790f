// Reads the small JSON bodies of the auth routes (and the local API's arguments): strings only,
// no unknown keys, every problem at once as a 400, and never a submitted value echoed back.
import { type ErrorDetail, ValidationError } from '../errors';
import { castEmail } from '../schema/value-cast';

/** Longest token, e-mail or name accepted: far above real values, low enough to keep lookups cheap. */
const MAX_LENGTH = 1024;

export type AuthBody = Record<string, unknown>;

/**
 * Longer than MAX_LENGTH characters counted as the password policy counts them (code points): a password
 * of 600 emoji (1200 UTF-16 units) that register accepted must not be refused by login.
 */
function tooLong(value: string): boolean {
  if (value.length <= MAX_LENGTH) return false;
  // Past two units per character no string can fit; spares spreading a huge value.
  // eslint-disable-next-line @typescript-eslint/no-misused-spread -- counted in code points on purpose, as the limit is
  return value.length > 2 * MAX_LENGTH || [...value].length > MAX_LENGTH;
}

/** The body as an object with only `allowed` keys, or a 400 naming every other key. */
export function readBody(body: unknown, allowed: readonly string[]): AuthBody {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ValidationError('The body must be a JSON object.', [{ message: 'The body must be a JSON object.', code: 'invalid_body' }]);
  }
  const unknown = Object.keys(body).filter((key) => !allowed.includes(key));
  if (unknown.length) {
    throw new ValidationError(
      'The body has unknown fields.',
      unknown.map((field) => ({ field, message: `unknown field "${field}"`, code: 'unknown_field' })),
    );
  }
  return body as AuthBody;
}

/** Collects field problems so a request learns all of them at once. */
export class InputErrors {
  readonly errors: ErrorDetail[] = [];

  /** A required, non-empty string (not trimmed: passwords and tokens are taken as typed). */
  string(body: AuthBody, field: string): string {
    const value = body[field];
    if (value === undefined || value === null || value === '') this.errors.push({ field, message: `${field} is required`, code: 'required' });
    else if (typeof value !== 'string') this.errors.push({ field, message: `${field} must be a string`, code: 'invalid_type' });
    else if (tooLong(value)) this.errors.push({ field, message: `${field} is too long`, code: 'too_long' });
    else return value;
    return '';
  }

  /** A required e-mail address, normalized as records store it (trimmed, lowercase). */
  email(body: AuthBody, field = 'email'): string {
    const value = this.string(body, field);
    if (!value) return '';
    // The e-mail field's own cast, so an address the auth routes take is one a record write stores.
    const email = castEmail(value);
    if (email === undefined) {
      this.errors.push({ field, message: `${field} must be a valid e-mail address`, code: 'invalid_email' });
      return '';
    }
    return email;
  }

  /** Throws a 400 listing every problem collected so far. */
  check(detail = 'The request is not valid.'): void {
    if (this.errors.length) throw new ValidationError(detail, this.errors);
  }
}
