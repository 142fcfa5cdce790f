// An audit event (an account event, a webhook retry, a refused write) as the entry the audit log stores.
// The parts every entry shares (who acted, which request) are mapped here once, for stored changes too.
// Never a value: only ids, names and kinds are copied; the user object, the request's body, its query
// string and its credentials never reach an entry.
import type { Request } from 'express';
import type { AuthUser, SystemActor } from '../config/types';
import { isSystemActor } from '../config/user';
import type { AuditEvent } from '../operations/audit-events';
import type { AuditAction, AuditActor, AuditEntry } from './audit-entry';

/** Longest user agent kept: an entry stays small whatever a client sends. */
export const MAX_USER_AGENT = 512;

/** Where an entry's request came from: the only origins an entry names. */
type EntryOrigin = AuditEntry['request']['origin'];
const ORIGINS: ReadonlySet<string> = new Set<EntryOrigin>(['rest', 'local', 'schedule', 'mcp']);

/** A string id, or undefined: ids of host users may be numbers or ObjectIds, which print as the id. */
function idText(id: unknown): string | undefined {
  if (typeof id === 'string') return id;
  if (typeof id === 'number' || typeof id === 'bigint') return String(id);
  if (typeof id === 'object' && id !== null && typeof (id as { toHexString?: unknown }).toHexString === 'function') return (id as { toHexString(): string }).toHexString();
  return undefined;
}

/**
 * Who acted, as an entry names them: a user of an auth collection (`user`), one of its API keys (`apiKey`:
 * the key's id and scopes, never the key), the host app's own user (`host`: req.user, no `collection`), the
 * router's own flow (`system`, by name), or nobody (`anonymous`). Only ids and names: never the user's fields.
 */
export function auditActor(actor: AuthUser | SystemActor | null | undefined): AuditActor {
  if (!actor) return { type: 'anonymous' };
  if (isSystemActor(actor)) return { type: 'system', name: actor.name };
  const id = idText(actor.id);
  const collection = typeof actor.collection === 'string' ? actor.collection : undefined;
  const base = { ...(id !== undefined && { id }), ...(collection !== undefined && { collection }) };
  if (typeof actor.apiKeyId === 'string') {
    const scopes = Array.isArray(actor.scopes) ? actor.scopes.filter((scope) => typeof scope === 'string') : undefined;
    return { type: 'apiKey', ...base, apiKeyId: actor.apiKeyId, ...(scopes && { scopes }) };
  }
  return { type: collection === undefined ? 'host' : 'user', ...base };
}

/** The request's path as the client sent it, without the query string (it may carry tokens). */
function pathOf(req: Request): string | undefined {
  const url = typeof req.originalUrl === 'string' ? req.originalUrl : req.url;
  if (typeof url !== 'string') return undefined;
  const end = url.search(/[?#]/);
  return end === -1 ? url : url.slice(0, end);
}

function header(req: Request, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === 'string' ? value : Array.isArray(value) ? value[0] : undefined;
}

/**
 * The request an entry names: its method, path (no query string), address (req.ip, so Express's `trust proxy`
 * decides whether a forwarded address counts), user agent (cut to MAX_USER_AGENT) and `id`, the request's
 * id when the caller knows it. `origin`: where the change came from; any other name (a system flow's) counts
 * as `rest` with a request, `local` without.
 */
export function auditRequest(req: Request | undefined, origin: string | undefined, id?: string): AuditEntry['request'] {
  const from: EntryOrigin = origin !== undefined && ORIGINS.has(origin) ? (origin as EntryOrigin) : req ? 'rest' : 'local';
  if (!req) return { ...(id !== undefined && { id }), origin: from };
  const path = pathOf(req);
  const userAgent = header(req, 'user-agent')?.slice(0, MAX_USER_AGENT);
  return {
    ...(id !== undefined && { id }),
    ...(typeof req.method === 'string' && { method: req.method }),
    ...(path !== undefined && { path }),
    ...(typeof req.ip === 'string' && { ip: req.ip }),
    ...(userAgent !== undefined && { userAgent }),
    origin: from,
  };
}

/** The resource of an event: only its collection or global and id, as strings. */
function resourceOf(event: AuditEvent): AuditEntry['resource'] {
  const { collection, global, id } = event.resource ?? {};
  return {
    ...(typeof collection === 'string' && { collection }),
    ...(typeof global === 'string' && { global }),
    ...(typeof id === 'string' && { id }),
  };
}

/** What an entry of `event` records: its own action, or for a refused write the write it refused. */
function actionOf(event: AuditEvent): AuditAction {
  if (event.action !== 'refused') return event.action;
  // Every emitter of a refused write names it (refused-write.ts); a missing one is the router's bug.
  if (event.refusedAction === undefined) throw new Error("content-router: a refused write's audit event names no write");
  return event.refusedAction;
}

/**
 * The entry of an audit event, without its id (the store gives it). A refused write is recorded as the
 * write it was (`create`, `update`...) with the refusal's status and problem code as its outcome.
 * `requestId`: the request's id, when the audit log keeps one.
 */
export function entryOfEvent(event: AuditEvent, at: Date, requestId?: string): Omit<AuditEntry, 'id'> {
  const changedFields = event.changedFields?.filter((field) => typeof field === 'string');
  return {
    at,
    action: actionOf(event),
    actor: auditActor(event.actor),
    resource: resourceOf(event),
    ...(changedFields && changedFields.length > 0 && { changedFields: [...changedFields] }),
    outcome: { status: event.outcome.status, ...(event.outcome.code !== undefined && { code: event.outcome.code }) },
    request: auditRequest(event.req, event.origin, requestId),
  };
}
