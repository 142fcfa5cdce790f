// The MCP route's body, read in the parse phase by this feature rather than by the core's JSON parser: a
// malformed JSON-RPC body must reach the SDK (which answers its own parse error), not become problem+json.
// The bytes are read once, bounded by the router's body limit; when they are JSON, `req.body` is the parsed
// value (what the idempotency feature fingerprints and the SDK is handed), else the SDK reads the raw bytes.
import express, { type Request, type RequestHandler } from 'express';

const RAW_BODIES = new WeakMap<Request, Buffer>();

/** The parse-phase handler of the MCP route: every content type read as bytes, then JSON when it is. */
export function readMcpBody(limit: string | number): RequestHandler {
  const raw = express.raw({ type: () => true, limit });
  return (req, res, next) => {
    raw(req, res, (error?: unknown) => {
      if (error) {
        next(error);
        return;
      }
      const bytes = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      RAW_BODIES.set(req, bytes);
      req.body = parseJson(bytes);
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
