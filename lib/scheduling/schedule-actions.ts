// What a caller does with scheduled actions: schedule one (its body read strictly: `action`, `at` in the
// future, an optional `ifMatch`, nothing else; every mistake a 400 naming its field), list a record's, and
// cancel a pending one (404 for an action that is not the record's, 409 for one no longer pending). Each
// needs the record's `publish` rule; the record must exist (as a working copy or published).
import type { Request } from 'express';
import type { AuthUser } from '../config/types';
import { type ErrorDetail, NotFoundError, ScheduleNotPendingError, ValidationError } from '../errors';
import type { ScheduleAction, ScheduleInput, ScheduledAction } from '../local/publish-api';
import { checkAccess } from '../operations/access';
import { matchesConstraint } from '../operations/constraint-match';
import { parseIfMatch } from '../operations/precondition';
import { noteWrite } from '../operations/request-state';
import { emitAuditEvent } from '../operations/audit-events';
import { draftsOf, readStates } from '../operations/drafts/working-copy';
import type { CollectionRuntime, Runtime } from '../operations/runtime';
import { parseIsoDate } from '../schema/parse-date';
import { isRecord } from '../util/is-record';
import { toIsoString } from '../util/iso-date';
import type { ScheduleRow, ScheduleStore } from './schedule-store';

const ACTIONS: readonly ScheduleAction[] = ['publish', 'unpublish'];
const KEYS = new Set(['action', 'at', 'ifMatch']);

/** Who asks, about which record: a collection's (`id`) or a global (its slug). */
export interface ScheduleCaller {
  runtime: Runtime;
  collection: CollectionRuntime;
  id: string;
  user: AuthUser | null;
  req?: Request;
  overrideAccess?: boolean;
}

/** An action as the API shows it. */
export function toScheduledAction(row: ScheduleRow): ScheduledAction {
  return {
    id: row._id.toHexString(),
    action: row.action,
    at: toIsoString(row.at),
    status: row.status,
    ...(row.reason !== undefined && { reason: row.reason }),
    ...(row.detail !== undefined && { detail: row.detail }),
    ...(row.kind === 'global' ? { global: row.slug } : { collection: row.slug }),
    record: row.record,
    ...(row.ifMatch !== undefined && { ifMatch: row.ifMatch }),
    createdAt: toIsoString(row.createdAt),
    ...(row.finishedAt && { finishedAt: toIsoString(row.finishedAt) }),
  };
}

/** The body of a schedule request, checked whole: every mistake is reported at once (400). */
export function readScheduleInput(body: unknown, now: Date): { action: ScheduleAction; at: Date; ifMatch?: string } {
  if (!isRecord(body)) throw new ValidationError('The body must be an object: { action, at, ifMatch? }.', [{ message: 'must be an object', code: 'invalid_body' }]);
  const errors: ErrorDetail[] = [];
  for (const key of Object.keys(body)) if (!KEYS.has(key)) errors.push({ field: key, message: 'is not a field of a schedule (action, at, ifMatch)', code: 'unknown_field' });
  const { action, at, ifMatch } = body as Partial<ScheduleInput> & Record<string, unknown>;
  if (action === undefined) errors.push({ field: 'action', message: 'is required', code: 'required' });
  else if (!ACTIONS.includes(action)) errors.push({ field: 'action', message: 'must be publish or unpublish', code: 'invalid_value' });
  const when = at instanceof Date ? (Number.isNaN(at.getTime()) ? undefined : at) : typeof at === 'string' ? parseIsoDate(at) : undefined;
  if (at === undefined) errors.push({ field: 'at', message: 'is required', code: 'required' });
  else if (!when) errors.push({ field: 'at', message: 'must be an ISO-8601 date-time', code: 'invalid_date' });
  else if (when.getTime() <= now.getTime()) errors.push({ field: 'at', message: 'must be in the future', code: 'in_the_past' });
  if (ifMatch !== undefined) {
    if (typeof ifMatch !== 'string') errors.push({ field: 'ifMatch', message: 'must be a string: the ETag of the working copy', code: 'invalid_type' });
    else {
      try {
        parseIfMatch(ifMatch, 'ifMatch');
      } catch (error) {
        errors.push({ field: 'ifMatch', message: error instanceof Error ? error.message : 'is not an ETag', code: 'invalid_value' });
      }
    }
  }
  if (errors.length) throw new ValidationError('The schedule is not valid.', errors);
  // eslint-disable-next-line @typescript-eslint/no-non-null-assertion -- no errors: action and at were read
  return { action: action!, at: when!, ...(typeof ifMatch === 'string' && { ifMatch }) };
}

/** The stored description of where an action applies. */
function targetOf(caller: ScheduleCaller): Pick<ScheduleRow, 'kind' | 'slug' | 'record'> {
  const { slug, isGlobal } = caller.collection.descriptor;
  return { kind: isGlobal ? 'global' : 'collection', slug, record: isGlobal ? slug : caller.id };
}

/** Drafts on, the `publish` rule, and a record to act on: what every schedule route asks first. */
async function admit(caller: ScheduleCaller): Promise<Pick<ScheduleRow, 'kind' | 'slug' | 'record'>> {
  draftsOf(caller.collection);
  const constraint = await checkAccess({ ...caller, op: 'publish' });
  const { _id, draft, published } = await readStates(caller.collection, caller.id);
  // A where the rule answers: the record's actions are the business of those it lets publish it, whichever
  // of its states they reach (as a publish holds both); to others it has none (404, as its draft route says).
  for (const row of [draft, published]) {
    if (constraint && row && !(await matchesConstraint(caller, row, constraint))) throw new NotFoundError('No record with this id.');
  }
  return { ...targetOf(caller), record: String(_id) };
}

/** Schedules an action on the record; answers it, pending. */
export async function scheduleAction(store: ScheduleStore, caller: ScheduleCaller, body: unknown): Promise<ScheduledAction> {
  const input = readScheduleInput(body, caller.runtime.config.clock.now());
  const target = await admit(caller);
  // The user as the access rules saw it (a JSON copy: what the rules read of it, kept with the action).
  const user = caller.user ? (JSON.parse(JSON.stringify(caller.user)) as AuthUser) : null;
  const row = await store.add({ ...target, ...input, by: { user, overrideAccess: caller.overrideAccess === true } });
  // A write of the request's: an Idempotency-Key keeps its answer, so a retry schedules nothing more.
  noteWrite(caller);
  scheduleAudited(caller, 201);
  return toScheduledAction(row);
}

/** Tells the audit log (if any) that the caller scheduled, or called off, an action of the record. */
function scheduleAudited(caller: ScheduleCaller, status: number): void {
  const { slug, isGlobal } = caller.collection.descriptor;
  emitAuditEvent(caller.runtime, () => ({
    action: 'schedule',
    actor: caller.user,
    resource: isGlobal ? { global: slug } : { collection: slug, id: caller.id },
    outcome: { status },
    ...(caller.req ? { req: caller.req } : { origin: 'local' }),
  }));
}

/** The record's actions, newest first. */
export async function listActions(store: ScheduleStore, caller: ScheduleCaller): Promise<ScheduledAction[]> {
  const target = await admit(caller);
  return (await store.listFor(target.kind, target.slug, target.record)).map(toScheduledAction);
}

/** Cancels a pending action of the record: 404 when it is not one of its, 409 when it is no longer pending. */
export async function cancelAction(store: ScheduleStore, caller: ScheduleCaller, scheduleId: string): Promise<ScheduledAction> {
  const target = await admit(caller);
  const found = await store.findFor(target.kind, target.slug, target.record, scheduleId);
  if (!found) throw new NotFoundError('No scheduled action with this id for this record.');
  const cancelled = await store.cancel(found._id);
  if (cancelled) {
    noteWrite(caller);
    scheduleAudited(caller, 200);
    return toScheduledAction(cancelled);
  }
  const now = await store.findFor(target.kind, target.slug, target.record, scheduleId);
  throw new ScheduleNotPendingError(now?.status === 'pending' ? 'running' : (now?.status ?? 'gone'));
}
