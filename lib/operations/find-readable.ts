// The records among some ids of a collection that the caller may read (live ones only): one query,
// under the collection's read rule. Population and the relationship check on writes both ask this.
import type { Types } from 'mongoose';
import type { RawDoc } from '../schema/to-record';
import { readConstraintOrNull } from './access';
import { buildFilter, idCondition } from './build-filter';
import type { CollectionRuntime, OperationArgs } from './runtime';

/** The readable rows with these ids, with `projection`; empty when the caller may not read `related` at all. */
export async function findReadable(
  args: OperationArgs,
  related: CollectionRuntime,
  ids: Types.ObjectId[],
  projection: Readonly<Record<string, 0 | 1>> | undefined,
): Promise<RawDoc[]> {
  const access = await readConstraintOrNull({ ...args, collection: related });
  if (!access) return [];
  const filter = await buildFilter({ ...args, collection: related, nodes: [idCondition(related, ids), access.constraint], deleted: false });
  return related.model.find(filter, projection).lean<RawDoc[]>();
}
