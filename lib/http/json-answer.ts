// How the router sends JSON. A read (GET, HEAD) carries the router's own strong ETag of its body, so a
// conditional GET works whatever `etag` setting the host's app has, and Express, finding a tag, adds none
// of its own; any other answer carries no ETag but the record's (a write's answer, set by the route): it is
// ended, not sent, since res.send would tag it with a weak ETag of the body that a client could take for
// the record's and send back in If-Match.
import type { Request, Response } from 'express';
import { representationTag } from '../operations/precondition';

/** Ends `res` with `body` as JSON (or as `type`), with its length and no ETag of Express's. */
export function endJson(res: Response, body: unknown, type = 'application/json; charset=utf-8'): void {
  endJsonText(res, JSON.stringify(body), type);
}

/** endJson for a body serialized already (a write's answer, whose ETag is a hash of the same text). */
export function endJsonText(res: Response, text: string, type = 'application/json; charset=utf-8'): void {
  res.set({ 'Content-Type': type, 'Content-Length': String(Buffer.byteLength(text)) });
  res.end(text);
}

/** Sends a read's body with its strong ETag (one the route set is kept), through res.json: 304s and HEAD as Express does them. */
export function sendReadJson(res: Response, body: unknown): void {
  if (!res.get('ETag')) res.set('ETag', representationTag(body));
  res.json(body);
}

/** Sends `body` as the answer to `req`: a read's tagged, anything else's untagged (see above). */
export function sendJson(req: Request, res: Response, body: unknown): void {
  if (req.method === 'GET' || req.method === 'HEAD') sendReadJson(res, body);
  else endJson(res, body);
}
