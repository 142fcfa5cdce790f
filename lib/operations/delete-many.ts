// Bulk delete by where (DELETE /<slug>?where=): every record that matches the where AND the caller's
// delete rule AND its read rule (a record the caller cannot read, it cannot find), each deleted as a single DELETE deletes it (soft on soft-delete collections unless
// `permanent`, which asks the same delete rule a single permanent delete asks).
//
// Steps: the delete rule -> the matching records, at most core.api.maxBulk (else a 400, nothing deleted; a dry
// run stops here with the count) -> per record, in order: beforeDelete (a throw vetoes that record) -> the
// deletes, in one command, each record only at the revision read (in one transaction where the server has
// them: bulk-write.ts) -> per record: its change event and afterDelete. The answer lists the ids deleted.
import type { ClientSession } from 'mongoose';
import type { DeleteHookArgs } from '../config/hooks';
import type { RawDoc } from '../schema/to-record';
import { checkAccess, findableConstraint } from './access';
import { assertUnanswered } from './answered';
import { buildFilter } from './build-filter';
import { type BulkArgs, type BulkFailure, type BulkItem, type BulkResult, atRevisions, dryRunAnswer, failureOf, selectRows, writeAll } from './bulk-write';
import { hookBase, reportAfterWrite, runAll, withAfterError } from './hooks';
import { publishWrite } from './runtime';

export interface DeleteManyArgs extends BulkArgs {
  /** Soft-delete collections: remove the records for good instead of stamping deletedAt. */
  permanent?: boolean;
}

/** One selected record on its way: as stored, what its hooks were told, and the row as it was deleted. */
interface Pending extends BulkItem {
  hookArgs?: DeleteHookArgs;
  vetoed?: boolean;
  deleted?: RawDoc;
}

/** Deletes every record the where selects; see the file's head for the steps. */
export function deleteMany(args: DeleteManyArgs): Promise<BulkResult> {
  return withAfterError(args, 'delete', async () => {
    const { collection } = args;
    const { beforeDelete, afterDelete } = collection.descriptor.hooks;
    const soft = collection.descriptor.softDelete && !args.permanent;
    const constraint = await checkAccess({ ...args, op: 'delete' });
    // A record the caller may not read, it cannot find by its values (nor count in a dry run).
    const findable = await findableConstraint(args);
    const filter = await buildFilter({ ...args, nodes: [args.where, constraint, findable], deleted: soft ? false : true });
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
    const now = args.runtime.config.clock.now();
    await deleteAll(args, ready, soft, now);
    for (const item of ready) if (item.failure !== undefined) failures.push(failureOf(args, String(item.stored._id), item.failure));

    const data: Array<{ id: string }> = [];
    for (const item of ready) {
      if (!item.deleted) continue;
      const id = String(item.deleted._id);
      publishWrite(args, collection, 'delete', [id], undefined, [item.deleted], soft ? { updatedAt: now, deletedAt: now } : undefined);
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

/**
 * Deletes every ready record at the revision it was read at (bulk-write.ts), one command per revision:
 * a deleteMany, or for a soft delete an updateMany stamping deletedAt. A record deleted was its row as read
 * (its revision had not moved), which is what its delete event shows: only readers who could read it then
 * hear of it.
 */
async function deleteAll(args: DeleteManyArgs, ready: Pending[], soft: boolean, now: Date): Promise<void> {
  const { model } = args.collection;
  if (ready.length === 0) return;
  const write = async (session?: ClientSession): Promise<number> => {
    let matched = 0;
    for (const { filter } of atRevisions(ready)) {
      matched += soft
        ? (await model.updateMany(filter, { $set: { deletedAt: now, updatedAt: now } }, { timestamps: false, session })).matchedCount
        : (await model.deleteMany(filter, { session })).deletedCount;
    }
    return matched;
  };
  const holds = (_item: Pending, row: RawDoc | undefined) => (soft ? row !== undefined && row.deletedAt != null : row === undefined);
  await writeAll(args, ready, write, holds, 'The record changed (or no longer matched the where) after it was selected; it was not deleted.');
  for (const item of ready) if (item.failure === undefined) item.deleted = item.stored;
}
