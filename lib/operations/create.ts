// The create operation: access -> validate (every error at once) -> check a create constraint on the
// record as it would be stored -> insert -> serialize -> notify.
import { assertValidInput } from '../schema/validate-input';
import type { ApiRecord, RawDoc } from '../schema/to-record';
import { checkAccess } from './access';
import { assertWithinConstraints } from './constraint-match';
import { bodyOf, prepareInput } from './prepare-input';
import { publishWrite, type WriteArgs } from './runtime';
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
  const doc = new collection.model(input.set);
  // Checked on the document as it will be stored (defaults applied), before it exists for anyone to see.
  await assertWithinConstraints(args, [{ doc: doc.toObject() as RawDoc, constraint }]);
  let row: RawDoc;
  try {
    await doc.save();
    row = doc.toObject() as RawDoc;
  } catch (error) {
    rethrowWriteError(error);
  }
  const record = collection.serialize(row);
  publishWrite(runtime, collection, 'create', [record.id], undefined, [row]);
  return record;
}
