// The update operation (PATCH semantics): access constraint and record id in one atomic
// findOneAndUpdate, so a record outside the caller's constraint is a 404 and nothing is written.
import { NotFoundError } from '../errors';
import { assertValidInput } from '../schema/validate-input';
import type { ApiRecord, RawDoc } from '../schema/to-record';
import { checkAccess } from './access';
import { buildFilter, idCondition } from './build-filter';
import { toRecordId } from './record-id';
import type { WriteArgs } from './operation-args';
import { bodyOf, prepareInput } from './prepare-input';
import { publishWrite } from './runtime';
import { rethrowWriteError } from './write-errors';

export interface UpdateArgs extends WriteArgs {
  id: string;
  data: unknown;
}

/** Applies a partial update; null clears a non-required field. */
export async function update(args: UpdateArgs): Promise<ApiRecord> {
  const { runtime, collection } = args;
  const _id = toRecordId(args.id);
  const constraint = await checkAccess({ ...args, op: 'update', data: bodyOf(args.data) });
  const input = await prepareInput(args, args.data, 'update');
  assertValidInput(input.errors, 'The update is not valid.');
  const filter = await buildFilter({ ...args, nodes: [idCondition(collection, [_id]), constraint], deleted: false });
  const change: Record<string, unknown> = { $set: input.set };
  if (input.unset.length) change.$unset = Object.fromEntries(input.unset.map((name) => [name, 1]));
  let row: RawDoc | null;
  try {
    // The whole row, hidden fields included: subscribers' access constraints may name them (an owner id);
    // serialize() keeps them out of the answer.
    row = await collection.model
      .findOneAndUpdate(filter, change, { returnDocument: 'after', runValidators: true })
      .lean<RawDoc>();
  } catch (error) {
    rethrowWriteError(error);
  }
  if (!row) throw new NotFoundError('No record with this id.');
  const record = collection.serialize(row);
  const fields = [...Object.keys(input.set), ...input.unset];
  publishWrite(runtime, collection, 'update', [record.id], fields, [row]);
  return record;
}
