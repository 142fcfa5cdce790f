// Bulk delete by where (DELETE /<slug>?where=): every record that matches the where AND the caller's
// delete rule, each deleted as a single DELETE deletes it (soft on soft-delete collections unless
// `permanent`, which asks the same delete rule a single permanent delete asks).
//
// Steps: the delete rule -> the matching records, at most core.api.maxBulk (else a 400, nothing deleted; a dry
// run stops here with the count) -> per record, in order: beforeDelete (a throw vetoes that record) -> the
// deletes, each at the revision read (all in one transaction where the server has them) -> per record: its
// change event and afterDelete. The answer lists the ids deleted: the delete rule may allow what the read
// rule would not show.
import type { DeleteHookArgs } from '../config/hooks';
import { WriteConflictError } from '../errors';
import { atRevision } from '../schema/revision';
import type { RawDoc } from '../schema/to-record';
import { checkAccess } from './access';
import { assertUnanswered } from './answered';
import { buildFilter } from './build-filter';
import { type BulkArgs, type BulkFailure, type BulkResult, dryRunAnswer, failureOf, selectRows, writeEach } from './bulk-write';
import { hookBase, reportAfterWrite, runAll, withAfterError } from './hooks';
import { publishWrite } from './runtime';

export interface DeleteManyArgs extends BulkArgs {
  /** Soft-delete collections: remove the records for good instead of stamping deletedAt. */
  permanent?: boolean;
}

/** One selected record on its way: as stored, what its hooks were told, and the row as it was deleted. */
interface Pending {
  stored: RawDoc;
  hookArgs?: DeleteHookArgs;
  vetoed?: boolean;
  deleted?: RawDoc;
}

/** Deletes every record the where selects; see the file's head for the steps. */
export function deleteMany(args: DeleteManyArgs): Promise<BulkResult> {
  return withAfterError(args, 'delete', async () => {
    const { collection, runtime } = args;
    const { beforeDelete, afterDelete } = collection.descriptor.hooks;
    const soft = collection.descriptor.softDelete && !args.permanent;
    const constraint = await checkAccess({ ...args, op: 'delete' });
    const filter = await buildFilter({ ...args, nodes: [args.where, constraint], deleted: soft ? false : true });
    const rows = await selectRows(args, filter);
    if (args.dryRun) return dryRunAnswer(rows.length);

    const failures: BulkFailure[] = [];
    const pending: Pending[] = rows.map((stored) => ({ stored }));
    if (beforeDelete.length || afterDelete.length) {
      const base = hookBase(args, 'delete');
      for (const item of pending) {
        item.hookArgs = { ...base, operation: 'delete', id: String(item.stored._id), doc: collection.serializeAll(item.stored), permanent: !soft };
        try {
          await runAll(collection, 'hooks.beforeDelete', beforeDelete, item.hookArgs);
        } catch (error) {
          item.vetoed = true;
          failures.push(failureOf(args, String(item.stored._id), error));
        }
      }
    }
    const ready = pending.filter((item) => !item.vetoed);
    assertUnanswered(args);
    // One instant for every stamp, published with the events (see delete.ts).
    const now = new Date();
    for (const [item, error] of await deleteAll(args, filter, ready, soft, now)) failures.push(failureOf(args, String(item.stored._id), error));

    const data: Array<{ id: string }> = [];
    for (const item of ready) {
      if (!item.deleted) continue;
      const id = String(item.deleted._id);
      publishWrite(runtime, collection, 'delete', [id], undefined, [item.deleted], soft ? { updatedAt: now, deletedAt: now } : undefined);
      if (item.hookArgs && afterDelete.length) {
        try {
          await runAll(collection, 'hooks.afterDelete', afterDelete, { ...item.hookArgs, doc: collection.serializeAll(item.deleted) });
        } catch (error) {
          await reportAfterWrite(args, 'delete', error);
        }
      }
      data.push({ id });
    }
    failures.sort((a, b) => a.id.localeCompare(b.id));
    return { data, meta: { matched: rows.length, deleted: data.length, failed: failures.length }, errors: failures };
  });
}

/** Deletes every ready record at the revision it was read at; one changed meanwhile is a 409 of its own. */
function deleteAll(args: DeleteManyArgs, filter: Record<string, unknown>, ready: Pending[], soft: boolean, now: Date): Promise<Array<[Pending, unknown]>> {
  const { model } = args.collection;
  return writeEach(args, ready, async (item, session) => {
    item.deleted = undefined;
    const at = { $and: [filter, { _id: item.stored._id }, atRevision(item.stored._rev)] };
    // Both return the row as it was before, so a delete event reaches only readers who could read it then.
    const before = soft
      ? await model.findOneAndUpdate(at, { $set: { deletedAt: now, updatedAt: now } }, { returnDocument: 'before', timestamps: false, session }).lean<RawDoc>()
      : await model.findOneAndDelete(at, { session }).lean<RawDoc>();
    if (!before) throw new WriteConflictError('The record changed (or no longer matched the where) after it was selected; it was not deleted.');
    item.deleted = before;
  });
}
