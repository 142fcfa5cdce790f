// The MCP route's body, read in the parse phase by this feature rather than by the core's JSON parser: a
// malformed JSON-RPC body must reach the SDK (which answers its own parse error), not become problem+json.
// The bytes are read once, bounded by the router's body limit; when they are JSON, `req.body` is the parsed
// value (what the idempotency feature fingerprints and the SDK is handed), else the SDK reads the raw bytes.
// A body the host's own parser already read (`app.use(express.json())` before the router) is taken as it
// parsed it. A JSON body nested deeper than any message needs is a 400 here: serializing it again (the SDK's
// adapter, the idempotency fingerprint) would exhaust the stack.
import express, { type Request, type RequestHandler } from 'express';
import { tooDeep } from '../http/json-body';

const RAW_BODIES = new WeakMap<Request, Buffer>();

/** The parse-phase handler of the MCP route: every content type read as bytes, then JSON when it is. */
export function readMcpBody(limit: string | number): RequestHandler {
  const raw = express.raw({ type: () => true, limit });
  return (req, res, next) => {
    // The host's parser leaves its value in req.body (and the stream read): nothing is left to read.
    const readByHost = req.body !== undefined && !Buffer.isBuffer(req.body);
    raw(req, res, (error?: unknown) => {
      if (error) {
        next(error);
        return;
      }
      const parsed: unknown = readByHost ? req.body : parseJson(Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0));
      const deep = tooDeep(parsed);
      if (deep) {
        req.body = undefined;
        next(deep);
        return;
      }
      RAW_BODIES.set(req, readByHost ? Buffer.from(JSON.stringify(parsed)) : Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0));
      req.body = parsed;
      next();
    });
  };
}

/** The parsed JSON of `bytes`, or undefined when they are empty or not JSON (the SDK answers that). */
function parseJson(bytes: Buffer): unknown {
  if (bytes.length === 0) return undefined;
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/** The bytes the parse phase read for `req` (empty when it read none). */
export function rawBodyOf(req: Request): Buffer {
  return RAW_BODIES.get(req) ?? Buffer.alloc(0);
}
