// Scheduled publishing as a feature (docs/versions.md): with any collection or global keeping drafts, the
// schedule routes, a store of actions in the router's database, and a runner that starts with api.ready and
// stops with api.close(), claiming due actions with a lease so several routers on one database run each
// exactly once. `api.schedules.runDue()` runs what is due at once (on the router's clock): tests and hosts
// that move time need not wait for the poll.
import { goneForGood, keepsDrafts } from '../operations/drafts/gone-for-good';
import { recorderFor } from '../operations/write/stored-change';
import type { Feature } from '../http/feature';
import { type ScheduleTarget, type ScheduledAction } from '../local/publish-api';
import { actor } from '../local/local-options';
import { NotFoundError } from '../errors';
import { type CollectionRuntime, type Runtime, getCollection } from '../operations/runtime';
import { type ScheduleCaller, cancelAction, listActions, scheduleAction } from './schedule-actions';
import { createScheduleRunner } from './schedule-runner';
import { scheduleRoutes } from './schedule-routes';
import { createScheduleStore } from './schedule-store';

/** Scheduled actions for server code. */
export interface SchedulesApi {
  /** Runs every action due now (on the router's clock) on this instance; answers how many it ran. */
  runDue(): Promise<number>;
}

declare module '../http/feature' {
  interface RouterMembers {
    /** The scheduled actions' runner (docs/versions.md). */
    schedules: SchedulesApi;
  }
}

function targetRuntime(runtime: Runtime, target: ScheduleTarget): { collection: CollectionRuntime; id: string } {
  if ('global' in target) {
    const global = runtime.globals.get(target.global);
    if (!global) throw new NotFoundError(`No global "${target.global}".`);
    return { collection: global, id: target.global };
  }
  return { collection: getCollection(runtime, target.collection), id: target.id };
}

export const schedulingFeature: Feature = {
  name: 'scheduling',
  create(runtime, lifecycle) {
    const all = [...runtime.collections.values(), ...runtime.globals.values()];
    const store = all.some((c) => c.drafts) ? createScheduleStore(runtime.connection, runtime.config.clock) : undefined;
    const runner = store && createScheduleRunner(runtime, store, runtime.config.logger);
    if (store && runner) {
      lifecycle.onReady.push(async () => {
        await store.createIndexes();
        runner.start();
      });
      lifecycle.onClose.push(() => runner.close());
    }
    const callerOf = (target: ScheduleTarget, options: Parameters<typeof actor>[0]): ScheduleCaller => {
      const who = actor(options);
      return { runtime, ...targetRuntime(runtime, target), user: who.user, overrideAccess: who.overrideAccess, req: who.req };
    };
    const kept = (caller: ScheduleCaller) => {
      const drafts = caller.collection.drafts;
      if (!drafts || !store) throw new NotFoundError(`Drafts are off for "${caller.collection.descriptor.slug}": nothing to schedule.`);
      return store;
    };
    // A record deleted for good takes its pending actions with it, in its delete's session: a record created
    // again under its id is not published by what was scheduled for what it was.
    const forgetActions = recorderFor(keepsDrafts, async (change, session) => {
      if (!store || !(await goneForGood(runtime, change, session))) return;
      const { slug, isGlobal } = change.collection.descriptor;
      await store.cancelAllFor(isGlobal ? 'global' : 'collection', slug, change.id, session);
    });
    return {
      hooks: { changeStored: [forgetActions] },
      routes: store ? all.flatMap((collection) => scheduleRoutes(runtime, collection, store)) : [],
      local: {
        async schedule(target, input, options): Promise<ScheduledAction> {
          const caller = callerOf(target, options);
          return scheduleAction(kept(caller), caller, input);
        },
        async schedules(target, options) {
          const caller = callerOf(target, options);
          return listActions(kept(caller), caller);
        },
        async cancelSchedule(target, scheduleId, options) {
          const caller = callerOf(target, options);
          return cancelAction(kept(caller), caller, scheduleId);
        },
      },
      expose: { schedules: { runDue: () => runner?.runDue() ?? Promise.resolve(0) } },
    };
  },
};
