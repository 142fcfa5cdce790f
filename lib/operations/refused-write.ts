// A write the router refused, told to the audit log (audit-events.ts): the caller may not (401, 403), the
// record moved under it or a value is taken (409), its If-Match is stale (412) or missing where required
// (428). A 400 is a malformed request, not an attempt on a record, and is not an event. Told once per
// failure, where it is first seen (a nested call through a hook's `api` passes the same error through the
// outer operation too), and never for the router's own writes (auth's flows retry or answer for themselves).
// Nothing of the request's body: the record, the write and who asked.
import type { Request } from 'express';
import type { AuthUser, SystemActor } from '../config/types';
import { isSystemActor } from '../config/user';
import { ContentError } from '../errors';
import type { CollectionDescriptor } from '../schema/descriptors';
import { isObjectIdString } from '../util/object-id';
import { emitAuditEvent } from './audit-events';
import type { OperationArgs, RefusedWriteAction, Runtime } from './runtime';

/** The statuses of a refused write. */
const REFUSED_STATUSES: ReadonlySet<number> = new Set([401, 403, 409, 412, 428]);

/** Failures told already, so an error seen by several operations (or by a route and its operation) is told once. */
const told = new WeakSet();

/** The write that was refused: its collection or global, the record when it names one, and who asked. */
export interface RefusedWrite {
  runtime: Pick<Runtime, 'hooks'>;
  collection: { descriptor: Pick<CollectionDescriptor, 'slug' | 'isGlobal'> };
  action: RefusedWriteAction;
  user: AuthUser | null;
  actor?: SystemActor;
  req?: Request;
  origin?: string;
  /** The record's id, when the write names one (not for a create or a bulk write); kept only if it is a record id. */
  id?: unknown;
}

/** What a write is to the audit log: its history op (a publish...), a working copy's save, or the operation. */
export function writeAction(args: Pick<OperationArgs, 'versionOp' | 'collection'>, operation: 'create' | 'update' | 'delete' | 'restore'): RefusedWriteAction {
  const op = args.versionOp;
  if (op === 'restore' || op === 'publish' || op === 'unpublish' || op === 'draft') return op;
  return args.collection.descriptor.variant === 'draft' ? 'draft' : operation;
}

/** True when the audit log hears refused writes: callers skip catching anything without it. */
export function hearsRefusals(runtime: Pick<Runtime, 'hooks'>): boolean {
  return runtime.hooks.auditEvents.length > 0;
}

/** True when `error` refuses a write and the audit log has not been told of it yet. */
export function isUntoldRefusal(error: unknown): error is ContentError {
  return error instanceof ContentError && REFUSED_STATUSES.has(error.status) && !told.has(error);
}

/** Tells the audit log of `error` when it refuses `write` (see above); anything else is left alone. */
export function noteRefusedWrite(write: RefusedWrite, error: unknown): void {
  if (!hearsRefusals(write.runtime) || !isUntoldRefusal(error) || isSystemActor(write.actor)) return;
  told.add(error);
  const { slug, isGlobal } = write.collection.descriptor;
  // The id as the client sent it is kept only when it is one: anything else in its place is the client's text.
  const id = typeof write.id === 'string' && !isGlobal && isObjectIdString(write.id) ? write.id.toLowerCase() : undefined;
  emitAuditEvent(write.runtime, {
    action: 'refused',
    refusedAction: write.action,
    actor: write.user,
    resource: isGlobal ? { global: slug } : { collection: slug, ...(id !== undefined && { id }) },
    outcome: { status: error.status, code: error.code },
    ...(write.req && { req: write.req }),
    ...(write.origin !== undefined && { origin: write.origin }),
  });
}

/** Runs a write, telling the audit log if it is refused (see noteRefusedWrite); the error is rethrown as it came. */
export async function refusalsNoted<T>(write: RefusedWrite, work: () => Promise<T>): Promise<T> {
  if (!hearsRefusals(write.runtime)) return work();
  try {
    return await work();
  } catch (error) {
    noteRefusedWrite(write, error);
    throw error;
  }
}
