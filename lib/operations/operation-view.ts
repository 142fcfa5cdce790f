// The caller's field view, asked for an operation before it starts (the REST routes and the local API read
// a query in it): a field read rule that fails there fails the operation, so the collection's afterError
// hooks hear of it as of any other failure of its operations.
import type { HookOperation } from '../config/hooks';
import { type FieldView, callerView } from './field-view';
import { reportError } from './after-error';
import type { OperationArgs } from './runtime';

/** callerView for one operation of `args.collection`; a failure goes to its afterError hooks, then on. */
export async function operationView(args: OperationArgs, operation: HookOperation): Promise<FieldView> {
  try {
    return await callerView(args);
  } catch (error) {
    await reportError(args, operation, error);
    throw error;
  }
}
