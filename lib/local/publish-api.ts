// The local API's editorial members: publish and unpublish (operations/drafts), and the scheduled actions
// (the scheduling feature supplies those; until it does, the base's placeholders reject).
import type { ApiRecord } from '../schema/to-record';
import { publish } from '../operations/drafts/publish';
import { unpublish } from '../operations/drafts/unpublish';
import { type IfMatch, parseIfMatch } from '../operations/precondition';
import { type Runtime, getCollection } from '../operations/runtime';
import { NotFoundError } from '../errors';
import { type LocalOptions, type LocalPreconditionOptions, actor } from './local-options';

/** What a scheduled action is: publish or unpublish the record's working copy at `at`. */
export type ScheduleAction = 'publish' | 'unpublish';
/** Where a scheduled action stands: waiting, run, run and refused (`reason`), or called off. */
export type ScheduleStatus = 'pending' | 'done' | 'failed' | 'cancelled';

/** A scheduled action as the API shows it. */
export interface ScheduledAction {
  id: string;
  action: ScheduleAction;
  /** When it is due (ISO 8601). */
  at: string;
  status: ScheduleStatus;
  /** A failed action's reason: `precondition_failed`, `forbidden`, `unauthorized`, `not_found`, `invalid`, `unique_conflict`, `error`. */
  reason?: string;
  /** A failed action's detail, as the problem it met said it. */
  detail?: string;
  /** The collection's slug (absent for a global). */
  collection?: string;
  /** The global's slug (absent for a collection's record). */
  global?: string;
  /** The record's id (a global: its slug). */
  record: string;
  /** The working copy's ETag it runs only at, when one was given. */
  ifMatch?: string;
  createdAt: string;
  /** When it ran or was cancelled. */
  finishedAt?: string;
}

/** What to schedule: the action, when (a Date or an ISO 8601 date-time, in the future), and optionally the ETag the working copy must still have then. */
export interface ScheduleInput {
  action: ScheduleAction;
  at: Date | string;
  ifMatch?: string;
}

/** Where an action applies: a collection's record, or a global. */
export type ScheduleTarget = { collection: string; id: string } | { global: string };

export interface PublishLocalApi {
  /** Publishes the record's working copy, as `POST /<slug>/:id/publish` does; `ifMatch`: the working copy's ETag. */
  publish(collection: string, id: string, options?: LocalPreconditionOptions): Promise<ApiRecord>;
  /** Removes the published record and keeps its working copy, as `POST /<slug>/:id/unpublish` does. */
  unpublish(collection: string, id: string, options?: LocalPreconditionOptions): Promise<ApiRecord>;
  /** Publishes a global's working copy, as `POST /globals/<slug>/publish` does. */
  publishGlobal(slug: string, options?: LocalPreconditionOptions): Promise<Record<string, unknown>>;
  /** Removes a global's published document (reads give its defaults again), as `POST /globals/<slug>/unpublish` does. */
  unpublishGlobal(slug: string, options?: LocalPreconditionOptions): Promise<Record<string, unknown>>;
  /** Schedules a publish or unpublish, as `POST /<slug>/:id/schedule` does (needs `publish`). */
  schedule(target: ScheduleTarget, input: ScheduleInput, options?: LocalOptions): Promise<ScheduledAction>;
  /** The record's scheduled actions, newest first, as `GET /<slug>/:id/schedule` lists them. */
  schedules(target: ScheduleTarget, options?: LocalOptions): Promise<ScheduledAction[]>;
  /** Cancels a pending action, as `DELETE /<slug>/:id/schedule/:scheduleId` does (404 unknown, 409 no longer pending). */
  cancelSchedule(target: ScheduleTarget, scheduleId: string, options?: LocalOptions): Promise<ScheduledAction>;
}

function ifMatchOf(options: LocalPreconditionOptions | undefined): IfMatch | undefined {
  return options?.ifMatch === undefined ? undefined : parseIfMatch(options.ifMatch, 'ifMatch');
}

function schedulingMissing(): Promise<never> {
  return Promise.reject(new Error('content-router: scheduling is not available on this router'));
}

/** Publish and unpublish bound to this router's runtime; the scheduling members are the feature's. */
export function createPublishLocalApi(runtime: Runtime): PublishLocalApi {
  const globalOf = (slug: string) => {
    const global = runtime.globals.get(slug);
    if (!global) throw new NotFoundError(`No global "${slug}".`);
    return global;
  };
  return {
    publish: async (slug, id, options) => publish({ runtime, collection: getCollection(runtime, slug), id, ifMatch: ifMatchOf(options), ...actor(options) }),
    unpublish: async (slug, id, options) => unpublish({ runtime, collection: getCollection(runtime, slug), id, ifMatch: ifMatchOf(options), ...actor(options) }),
    publishGlobal: async (slug, options) => publish({ runtime, collection: globalOf(slug), id: slug, ifMatch: ifMatchOf(options), ...actor(options) }),
    unpublishGlobal: async (slug, options) => unpublish({ runtime, collection: globalOf(slug), id: slug, ifMatch: ifMatchOf(options), ...actor(options) }),
    schedule: schedulingMissing,
    schedules: schedulingMissing,
    cancelSchedule: schedulingMissing,
  };
}
