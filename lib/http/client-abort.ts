// A client that closes the connection before its request has all arrived (an upload cancelled, a tab
// closed): whatever error that causes downstream (multer's "Request aborted", a stream's ECONNRESET
// "aborted" or premature close) is the client's event, not a server failure. Decided from the request
// itself, so a database socket's own ECONNRESET (an outage) is never taken for one.
import type { Request } from 'express';

/** True when the client went away before the request's body ended. */
export function isClientAbort(req: Request): boolean {
  return !req.complete && (req.destroyed || req.socket?.destroyed === true);
}
