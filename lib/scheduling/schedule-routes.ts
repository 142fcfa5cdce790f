// The schedule routes of a collection's records (`/<slug>/:id/schedule`) and of a global
// (`/globals/<slug>/schedule`): schedule (201), list, cancel (`/schedule/:scheduleId`); on collections and
// globals with drafts only (elsewhere the paths stay free for a host's own endpoints).
import type { Request } from 'express';
import { endJson } from '../http/json-answer';
import { requestUser } from '../http/request-user';
import { refusalsHeard } from '../http/refused-write-route';
import type { JsonSchema, RouteDef } from '../http/route-table';
import type { CollectionRuntime, Runtime } from '../operations/runtime';
import { recordNouns } from '../schema/type-names';
import { type ScheduleCaller, cancelAction, listActions, scheduleAction } from './schedule-actions';
import type { ScheduleStore } from './schedule-store';

const INPUT: JsonSchema = {
  type: 'object',
  properties: {
    action: { type: 'string', enum: ['publish', 'unpublish'] },
    at: { type: 'string', format: 'date-time', description: 'When to run it: in the future.' },
    ifMatch: { type: 'string', description: "The working copy's ETag: when it no longer matches at run time, the action fails with precondition_failed and changes nothing." },
  },
  required: ['action', 'at'],
  additionalProperties: false,
};
const ERRORS = { 401: { description: 'Invalid credentials' }, 403: { description: 'Not allowed (the publish rule)' } };

/** The schedule routes of one collection, or of one global. */
export function scheduleRoutes(runtime: Runtime, collection: CollectionRuntime, store: ScheduleStore): RouteDef[] {
  if (!collection.drafts) return [];
  const { slug, isGlobal } = collection.descriptor;
  const at = isGlobal ? `/globals/${slug}/schedule` : `/${slug}/:id/schedule`;
  const noun = isGlobal ? `the ${slug} global` : recordNouns(slug).one;
  const tags = [isGlobal ? 'globals' : slug];
  const callerOf = async (req: Request): Promise<{ store: ScheduleStore; caller: ScheduleCaller }> => {
    return { store, caller: { runtime, collection, req, user: await requestUser(runtime, req), id: isGlobal ? slug : String(req.params.id) } };
  };
  const common = { tags, auth: 'optional' as const, rule: { op: 'publish' as const, slug, global: isGlobal }, ...(isGlobal ? {} : { collection: slug }) };
  return [
    {
      ...common,
      method: 'post',
      path: at,
      operationId: isGlobal ? `globals.${slug}.schedule` : `${slug}.schedule`,
      summary: `Schedule a publish or unpublish of ${noun}`,
      description: 'Needs the publish rule. The action runs at `at` (within seconds) as the caller, whose access is checked again then.',
      body: { type: 'json', shape: { kind: 'schema', schema: INPUT }, required: true },
      // A retried request must not schedule the action twice: it may carry an Idempotency-Key.
      config: { idempotent: true },
      responses: { 201: { description: 'The scheduled action, pending', shape: { kind: 'schedule' } }, 400: { description: 'Invalid schedule' }, ...ERRORS, 404: { description: 'No such record' } },
      handler: refusalsHeard({ runtime, collection, action: 'schedule' }, async (req, res) => {
        const { store: kept, caller } = await callerOf(req);
        endJson(res.status(201), await scheduleAction(kept, caller, req.body));
      }),
    },
    {
      ...common,
      method: 'get',
      path: at,
      operationId: isGlobal ? `globals.${slug}.schedules` : `${slug}.schedules`,
      summary: `List the scheduled actions of ${noun}`,
      description: 'Every status is kept: pending, done, failed (with its reason), cancelled. Newest first.',
      responses: { 200: { description: 'The actions', shape: { kind: 'schedule-list' } }, ...ERRORS, 404: { description: 'No such record' } },
      async handler(req, res) {
        const { store: kept, caller } = await callerOf(req);
        endJson(res.set('Cache-Control', 'private, no-store'), { data: await listActions(kept, caller) });
      },
    },
    {
      ...common,
      method: 'delete',
      path: `${at}/:scheduleId`,
      operationId: isGlobal ? `globals.${slug}.cancelSchedule` : `${slug}.cancelSchedule`,
      summary: `Cancel a scheduled action of ${noun}`,
      responses: {
        200: { description: 'The action, cancelled', shape: { kind: 'schedule' } },
        ...ERRORS,
        404: { description: 'No such action for this record' },
        409: { description: 'The action is no longer pending (done, failed, cancelled, or running)' },
      },
      handler: refusalsHeard({ runtime, collection, action: 'schedule' }, async (req, res) => {
        const { store: kept, caller } = await callerOf(req);
        endJson(res, await cancelAction(kept, caller, String(req.params.scheduleId)));
      }),
    },
  ];
}
