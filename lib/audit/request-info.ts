// The request an entry names: method, path (never the query string, which may carry a token), the client's
// address and user agent, the request's id, and where the call came from. The id is the audit log's slot of the
// request state: a sane `X-Request-Id` the client (or a proxy) sent, else a random one, sent back as
// `X-Request-Id` so a client's report and the log meet.
import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import { requestState } from '../operations/request-state';
import type { AuditEntry } from './audit-entry';

declare module '../operations/request-state' {
  interface RequestState {
    /** The request's id as the audit log records it (and the `X-Request-Id` header answers it). */
    requestId?: string;
  }
}

/** What a request id sent by a client may be: short, printable, no spaces (a UUID, a trace id). */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;
/** The user agent as recorded: a header of any length is a client's to send, not the log's to keep whole. */
const MAX_USER_AGENT = 512;
const MAX_PATH = 2048;

/** The request's id: the one it was given (onRequest), else assigned now. */
export function requestIdOf(req: Request): string {
  const state = requestState(req);
  if (state.requestId === undefined) {
    const sent = req.header('x-request-id');
    state.requestId = sent !== undefined && SANE_REQUEST_ID.test(sent) ? sent : randomUUID();
  }
  return state.requestId;
}

/** Gives the request its id, and the answer its `X-Request-Id` header. */
export function assignRequestId(req: Request, res: Response): void {
  res.setHeader('X-Request-Id', requestIdOf(req));
}

/** Where a call came from as an entry says it: a request, a scheduled action, or server code. */
export function originOf(origin: string | undefined, req: Request | undefined): AuditEntry['request']['origin'] {
  if (origin === 'rest' || origin === 'local' || origin === 'schedule' || origin === 'mcp') return origin;
  // A system flow (auth's) runs for a request, or for server code.
  return req ? 'rest' : 'local';
}

/** The entry's `request`: from `req` when there is one; a local call has only its origin. */
export function auditRequest(req: Request | undefined, origin: string | undefined): AuditEntry['request'] {
  const from = originOf(origin, req);
  if (!req) return { origin: from };
  const path = (req.originalUrl || req.url).split('?', 1)[0].slice(0, MAX_PATH);
  const agent = req.header('user-agent');
  return {
    id: requestIdOf(req),
    method: req.method,
    path,
    ...(req.ip !== undefined && { ip: req.ip }),
    ...(agent !== undefined && { userAgent: agent.slice(0, MAX_USER_AGENT) }),
    origin: from,
  };
}
