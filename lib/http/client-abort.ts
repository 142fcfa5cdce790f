// A client that went away before its answer (an upload cancelled, a tab closed, a connection reset):
// whatever error that causes downstream (multer's "Request aborted", a stream's ECONNRESET "aborted" or
// premature close, a write to the closed socket) is the client's event, not a server failure, whatever
// the method and whether or not its body had all arrived. Decided from the client's own request and
// socket, so a database socket's own ECONNRESET (an outage) is never taken for one.
import type { Request } from 'express';

/**
 * True when the client's connection is gone: its socket is destroyed, or the request was destroyed before its
 * body ended (a request whose body has all been read is destroyed by Node as a matter of course).
 */
export function isClientAbort(req: Request): boolean {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition, @typescript-eslint/no-unnecessary-boolean-literal-compare -- Node's types say Socket, but a request whose socket was detached holds none
  return req.socket?.destroyed === true || (!req.complete && req.destroyed);
}
