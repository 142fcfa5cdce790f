// The create operation: access -> the body made ready (field access, beforeValidate, validation,
// beforeChange: prepare-input.ts) -> check a create constraint on the record as it would be stored ->
// insert -> notify -> afterChange and the read steps (write-answer.ts).
import { assertValidInput } from '../schema/validate-input';
import type { ApiRecord, RawDoc } from '../schema/to-record';
import { checkAccess } from './access';
import { assertUnanswered } from './answered';
import { assertWithinConstraints } from './constraint-match';
import { withAfterError } from './hooks';
import { bodyOf, prepareWrite } from './prepare-input';
import { publishWrite, type WriteArgs } from './runtime';
import { answerWrite } from './write-answer';
import { rethrowWriteError } from './write-errors';

export interface CreateArgs extends WriteArgs {
  data: unknown;
}

/** Creates one record and returns it as the API shows it. */
export function create(args: CreateArgs): Promise<ApiRecord> {
  return withAfterError(args, 'create', async () => {
    const { collection } = args;
    const constraint = await checkAccess({ ...args, op: 'create', data: bodyOf(args.data) });
    const { input, data } = await prepareWrite(args, args.data, { mode: 'create', operation: 'create' });
    assertValidInput(input.errors, 'The record is not valid.');
    const doc = new collection.model(input.set);
    // Checked on the document as it will be stored (defaults applied), before it exists for anyone to see.
    await assertWithinConstraints(args, [{ doc: doc.toObject() as RawDoc, constraint }]);
    assertUnanswered(args);
    let row: RawDoc;
    try {
      await doc.save();
      row = doc.toObject() as RawDoc;
    } catch (error) {
      rethrowWriteError(error);
    }
    publishWrite(args, collection, 'create', [String(row._id)], undefined, [row]);
    return answerWrite(args, 'create', { row, data });
  });
}
