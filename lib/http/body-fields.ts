// The small JSON bodies of action routes (a preview link's `{ expiresIn }`, a publish's nothing): read as an
// object of known fields, so a client's mistake (a value the route would ignore, a misspelt field) is a 400
// naming it, never silently dropped.
import type { Request } from 'express';
import { ValidationError } from '../errors';
import { isRecord } from '../util/is-record';

/** The body's fields (none without a body); 400 for a body that is not an object or names a field outside `allowed`. */
export function bodyFields(req: Request, allowed: readonly string[]): Record<string, unknown> {
  const body: unknown = req.body;
  if (body === undefined || body === null) return {};
  if (!isRecord(body)) throw new ValidationError('The body must be a JSON object.', [{ message: 'The body must be a JSON object.', code: 'invalid_body' }]);
  const unknown = Object.keys(body).filter((key) => !allowed.includes(key));
  if (unknown.length) {
    const takes = allowed.length ? `the body takes ${allowed.join(', ')} only` : 'this route takes no body';
    throw new ValidationError(`Unknown field${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `"${k}"`).join(', ')}: ${takes}.`, unknown.map((field) => ({ field, message: `unknown field "${field}"`, code: 'unknown_field' })));
  }
  return body;
}
