// Bulk delete by where (DELETE /<slug>?where=): every record that matches the where AND the caller's delete
// rule AND its read rule (a record the caller cannot read, it cannot find), each deleted as a single DELETE
// deletes it (soft on soft-delete collections unless `permanent`, which asks the same delete rule a single
// permanent delete asks), through the write pipeline's steps (write/pipeline.ts).
//
// Steps: the delete rule -> the matching records, at most core.api.maxBulk (else a 400, nothing deleted; a dry
// run stops here with the count) ->
//   1. prepare every record, in order: beforeDelete. A veto (any failure) fails the whole request, nothing
//      deleted;
//   2. store each record's delete at the revision read, the driver answering with the record it deleted
//      (write/store-each.ts: in one transaction where the server has them; else each record on its own, a
//      record changed or deleted meanwhile being its 409 in `errors`);
//   3. for each record deleted: its change event and afterDelete. The answer lists the ids deleted.
import type { DeleteHookArgs } from '../config/hooks';
import type { RawDoc } from '../schema/to-record';
import { findableConstraint } from './access';
import { buildFilter } from './build-filter';
import { type BulkArgs, type BulkFailure, type BulkResult, dryRunAnswer, failureOf, selectRows } from './bulk-write';
import { hookBase, runAll } from './hooks';
import { withAfterError } from './after-error';
import { finishDelete, storeDelete } from './write/pipeline';
import { type ItemFailure, refuseFailedItems, storeEach } from './write/store-each';
import { checkWriteAccess } from './drafts/publish-access';

export interface DeleteManyArgs extends BulkArgs {
  /** Soft-delete collections: remove the records for good instead of stamping deletedAt. */
  permanent?: boolean;
}

const CONFLICT = 'The record changed (or was deleted) after it was selected; it was not deleted.';

/** Deletes every record the where selects; see the file's head for the steps. */
export function deleteMany(args: DeleteManyArgs): Promise<BulkResult> {
  return withAfterError(args, 'delete', async () => {
    const { collection } = args;
    const { beforeDelete, afterDelete } = collection.descriptor.hooks;
    const soft = collection.descriptor.softDelete && !args.permanent;
    const constraint = await checkWriteAccess({ ...args, op: 'delete' });
    // A record the caller may not read, it cannot find by its values (nor count in a dry run).
    const findable = await findableConstraint(args);
    const filter = await buildFilter({ ...args, nodes: [args.where, constraint, findable], deleted: soft ? false : true });
    const rows = await selectRows(args, filter);
    if (args.dryRun) return dryRunAnswer(rows.length);

    // 1. Prepare: beforeDelete for every record; any failure fails the request, nothing deleted.
    const hookArgs = new Map<RawDoc, DeleteHookArgs>();
    if (beforeDelete.length || afterDelete.length) {
      const base = hookBase(args, 'delete');
      const failures: ItemFailure[] = [];
      for (const stored of rows) {
        const forRecord: DeleteHookArgs = { ...base, operation: 'delete', id: String(stored._id), doc: collection.serializeAll(stored), permanent: !soft };
        hookArgs.set(stored, forRecord);
        try {
          await runAll(collection, 'hooks.beforeDelete', beforeDelete, forRecord);
        } catch (error) {
          failures.push({ item: { id: String(stored._id) }, error });
        }
      }
      refuseFailedItems(failures, 'deleted');
    }

    // 2. Store each delete at its revision. One instant for every stamp, published with the events (see delete.ts).
    const softAt = soft ? args.runtime.config.clock.now() : undefined;
    // eslint-disable-next-line @typescript-eslint/no-non-null-assertion -- a store at the revision read either deletes the record or throws its 409
    const outcomes = await storeEach(args, rows, (stored) => ({ id: String(stored._id) }), (stored, session) => storeDelete(args, { stored, softAt, conflict: CONFLICT, session }).then((change) => change!));

    // 3. Per record deleted: publish, afterDelete.
    const data: Array<{ id: string }> = [];
    const errors: BulkFailure[] = [];
    for (const [index, outcome] of outcomes.entries()) {
      if (outcome.change) {
        await finishDelete(args, outcome.change, hookArgs.get(rows[index]));
        data.push({ id: outcome.change.id });
      } else if (outcome.failure) {
        errors.push(failureOf(args, String(rows[index]._id), outcome.failure, 'delete'));
      }
    }
    errors.sort((a, b) => a.id.localeCompare(b.id));
    return { data, meta: { matched: rows.length, deleted: data.length, failed: errors.length }, errors };
  });
}
