// How the router sends JSON. A read (GET, HEAD) carries the router's own strong ETag of its body, so a
// conditional GET works whatever `etag` setting the host's app has, and Express, finding a tag, adds none
// of its own; any other answer carries no ETag but the record's (a write's answer, set by the route): it is
// ended, not sent, since res.send would tag it with a weak ETag of the body that a client could take for
// the record's and send back in If-Match.
import type { Request, Response } from 'express';
import { representationTag, jsonTag } from '../operations/precondition';

/** Ends `res` with `body` as JSON (or as `type`), with its length and no ETag of Express's. */
export function endJson(res: Response, body: unknown, type = 'application/json; charset=utf-8'): void {
  endJsonText(res, JSON.stringify(body), type);
}

/** endJson for a body serialized already (a write's answer, whose ETag is a hash of the same text). */
export function endJsonText(res: Response, text: string, type = 'application/json; charset=utf-8'): void {
  res.set({ 'Content-Type': type, 'Content-Length': String(Buffer.byteLength(text)) });
  res.end(text);
}

/**
 * True when the app sends JSON as JSON.stringify writes it: no `json replacer`, `json spaces` or `json
 * escape` setting. Then the text hashed for the ETag is the body itself, and is written once.
 */
function plainJson(res: Response): boolean {
  const { app } = res;
  return app.get('json replacer') === undefined && app.get('json spaces') === undefined && !app.get('json escape');
}

/**
 * Sends a read's body with its strong ETag (one the route set is kept): 304s and HEAD as Express's res.send
 * does them. The body is stringified once, for the tag and the answer alike; with the app's JSON settings in
 * play, res.json writes it as they say.
 */
export function sendReadJson(res: Response, body: unknown): void {
  if (!plainJson(res)) {
    if (!res.get('ETag')) res.set('ETag', representationTag(body));
    res.json(body);
    return;
  }
  const text = JSON.stringify(body);
  if (res.getHeader('ETag') === undefined) res.setHeader('ETag', jsonTag(text));
  if (res.getHeader('Content-Type') !== undefined || res.getHeader('Transfer-Encoding') !== undefined) {
    // What res.json does with the text it made.
    res.send(text);
    return;
  }
  endReadText(res, text);
}

/**
 * What res.send does with a JSON text on a read whose route set neither a type nor a transfer encoding, the
 * text ended as a string: Node writes it with the headers in one piece, where res.send, past 1,000
 * characters, copies it into a buffer first and writes the two apart.
 */
function endReadText(res: Response, text: string): void {
  // Express's `req.fresh`, which conditional-get.ts makes its own evaluation for a request with a condition.
  if (res.req.fresh) {
    res.statusCode = 304;
    res.end();
    return;
  }
  res.setHeader('Content-Type', JSON_TYPE);
  res.setHeader('Content-Length', String(Buffer.byteLength(text)));
  if (res.req.method === 'HEAD') res.end();
  else res.end(text, 'utf8');
}

const JSON_TYPE = 'application/json; charset=utf-8';

/** Sends `body` as the answer to `req`: a read's tagged, anything else's untagged (see above). */
export function sendJson(req: Request, res: Response, body: unknown): void {
  if (req.method === 'GET' || req.method === 'HEAD') sendReadJson(res, body);
  else endJson(res, body);
}
