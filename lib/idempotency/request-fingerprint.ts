// What "the same request" means for a key: the method, the path with its query as sent, and the body: a
// JSON body as parsed (the same members in the same order, whitespace aside), a multipart form by its
// digest (http/form-digest.ts: fields, file names, types and bytes, whatever the boundary). An HMAC keyed
// with the Idempotency-Key, which is never stored: a body's secrets (a password an admin sets on a new
// user) cannot be guessed and checked against the row.
import { createHmac } from 'node:crypto';
import type { Request } from 'express';

export type FingerprintedBody = { json: unknown } | { form: string };

/** An HMAC-SHA-256, keyed with the request's Idempotency-Key, over its method, path, query and body. */
export function requestFingerprint(req: Request, key: string, body: FingerprintedBody): string {
  const content = 'form' in body ? ['form', body.form] : ['json', body.json ?? null];
  return createHmac('sha256', key).update(JSON.stringify([req.method, req.originalUrl, ...content])).digest('hex');
}
