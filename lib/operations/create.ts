// The create operation, a user of the write pipeline (write/pipeline.ts): 1. access and the body made ready
// (field access, beforeValidate, validation, beforeChange: prepare-input.ts), then a create constraint
// checked on the record as it would be stored (defaults applied), before it exists for anyone to see ->
// 3-4. insert, and record the change at the seam -> 5-7. publish, afterChange, the answer.
import { assertValidInput } from '../schema/validate-input';
import type { ApiRecord } from '../schema/to-record';
import { assertWithinConstraints } from './constraint-match';
import { withAfterError } from './after-error';
import { bodyOf, prepareWrite } from './prepare-input';
import type { WriteArgs } from './runtime';
import { answerStored, storeCreate, storeOne } from './write/pipeline';
import { recordToInsert } from './write/store';
import { checkWriteAccess } from './drafts/publish-access';

export interface CreateArgs extends WriteArgs {
  data: unknown;
}

/** Creates one record and returns it as the API shows it. */
export function create(args: CreateArgs): Promise<ApiRecord> {
  return withAfterError(args, 'create', async () => {
    const constraint = await checkWriteAccess({ ...args, op: 'create', data: bodyOf(args.data) });
    const { input, data } = await prepareWrite(args, args.data, { mode: 'create', operation: 'create' });
    assertValidInput(input.errors, 'The record is not valid.');
    if (constraint) await assertWithinConstraints(args, [{ doc: recordToInsert(args.collection, input.set), constraint }]);
    // eslint-disable-next-line @typescript-eslint/no-non-null-assertion -- a create always stores (storeOne answers null only for a conditional miss)
    const change = (await storeOne(args, (session) => storeCreate(args, input.set, session)))!;
    return answerStored(args, change, data);
  });
}
