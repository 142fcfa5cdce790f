// Lists working copies (GET /<slug>?draft=true): the list operation on the drafts runtime (every list
// parameter, the readDrafts rule, never the response cache), each record with its status.
import { type FindArgs, find } from '../find';
import type { FindResult } from '../find-result';
import { type DraftRecord, draftsOf, statusesOf } from './working-copy';
import { toRecordId } from '../record-id';

/** A page of working copies, each with `_status`. */
export interface DraftPage extends FindResult {
  docs: DraftRecord[];
}

/** Lists the working copies of a drafts collection. */
export async function findDrafts(args: FindArgs): Promise<DraftPage> {
  const { collection } = args;
  const result = await find({ ...args, collection: draftsOf(collection), cacheable: undefined });
  const statuses = await statusesOf(collection, result.docs.map((record) => toRecordId(record.id)));
  return { ...result, docs: result.docs.map((record) => ({ ...record, _status: statuses.get(record.id) ?? 'draft' })) };
}
