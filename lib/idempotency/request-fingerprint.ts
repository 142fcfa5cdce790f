// What "the same request" means for a key: the method, the path with its query as sent, and the body: a
// JSON body as parsed (the same members in the same order, whitespace aside), a multipart form by its
// digest (http/form-digest.ts: fields, file names, types and bytes, whatever the boundary).
import { createHash } from 'node:crypto';
import type { Request } from 'express';

export type FingerprintedBody = { json: unknown } | { form: string };

/** A SHA-256 over the request's method, path, query and body. */
export function requestFingerprint(req: Request, body: FingerprintedBody): string {
  const content = 'form' in body ? ['form', body.form] : ['json', body.json ?? null];
  return createHash('sha256').update(JSON.stringify([req.method, req.originalUrl, ...content])).digest('hex');
}
