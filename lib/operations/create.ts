// The create operation: access -> validate (every error at once) -> insert -> check a create constraint
// -> serialize -> notify.
import type { Types } from 'mongoose';
import { assertValidInput } from '../schema/validate-input';
import type { ApiRecord, RawDoc } from '../schema/to-record';
import { checkAccess } from './access';
import { assertCreatedWithin } from './create-constraint';
import type { WriteArgs } from './operation-args';
import { bodyOf, prepareInput } from './prepare-input';
import { publishWrite } from './runtime';
import { rethrowWriteError } from './write-errors';

export interface CreateArgs extends WriteArgs {
  data: unknown;
}

/** Creates one record and returns it as the API shows it. */
export async function create(args: CreateArgs): Promise<ApiRecord> {
  const { runtime, collection } = args;
  const constraint = await checkAccess({ ...args, op: 'create', data: bodyOf(args.data) });
  const input = await prepareInput(args, args.data, 'create');
  assertValidInput(input.errors, 'The record is not valid.');
  let row: RawDoc;
  try {
    const doc = await collection.model.create(input.set);
    row = doc.toObject() as RawDoc;
  } catch (error) {
    rethrowWriteError(error);
  }
  await assertCreatedWithin(args, [{ _id: row._id as Types.ObjectId, constraint }]);
  const record = collection.serialize(row);
  publishWrite(runtime, collection, 'create', [record.id], undefined, [row]);
  return record;
}
