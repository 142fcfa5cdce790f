// Reads one record's working copy (GET /<slug>/:id/draft): the readDrafts rule (401/403 otherwise, never
// the published record instead), then the copy, or for a record stored before drafts were switched on and
// never saved as a draft since, its published record (which is then its working copy: `published`).
import { NotFoundError } from '../../errors';
import type { RawDoc } from '../../schema/to-record';
import { checkAccess } from '../access';
import { buildFilter, idCondition } from '../build-filter';
import { type FindByIdArgs, findById } from '../find-by-id';
import { finishRows } from '../finish-rows';
import { withAfterError } from '../after-error';
import { toRecordId } from '../record-id';
import { operationArgs } from '../runtime';
import { type DraftAnswer, draftsOf, statusesOf } from './working-copy';

/** The working copy of record `id` with its status; 404 when there is neither a copy nor a published record. */
export async function findDraft(args: FindByIdArgs): Promise<DraftAnswer> {
  const { collection } = args;
  const drafts = draftsOf(collection);
  const _id = toRecordId(args.id);
  const onDrafts = { ...args, collection: drafts };
  try {
    const record = await findById(onDrafts);
    const status = (await statusesOf(collection, [_id])).get(record.id) ?? 'draft';
    return { record, status };
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
  }
  // No copy this caller may read. A copy its readDrafts constraint hides stays hidden (404).
  if (await drafts.model.exists({ _id })) throw new NotFoundError('No record with this id.');
  const base = operationArgs(onDrafts);
  return withAfterError(base, 'read', async () => {
    const constraint = await checkAccess({ ...base, op: 'read', id: args.id });
    // The published record read as its working copy: under readDrafts, presented as working copies are.
    const filter = await buildFilter({ ...base, nodes: [idCondition(drafts, [_id]), constraint] });
    const row = await collection.model.findOne(filter, drafts.projection).lean<RawDoc>();
    if (!row) throw new NotFoundError('No record with this id.');
    const [record] = await finishRows(base, [row], args.populate ?? {}, args.select);
    return { record, status: 'published' as const };
  });
}
