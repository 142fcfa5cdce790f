// What every write does with a body before touching the database: work out which fields this caller
// may not set, validate, check that relationships name records, then let features rewrite it (auth
// checks and hashes passwords here).
import { type ValidatedInput, validateInput } from '../schema/validate-input';
import { readOnlyFieldsOf, type WriteArgs } from './runtime';
import { findMissingRelations } from './check-relations';

/**
 * Validates and transforms a create or update body; the caller asserts (and may index) its errors.
 * `checkRelations: false` leaves the relationship check to a caller that batches it (batch create).
 */
export async function prepareInput(args: WriteArgs, body: unknown, mode: 'create' | 'update', checkRelations = true): Promise<ValidatedInput> {
  const { runtime, collection } = args;
  const readOnly = args.readOnly ?? (args.overrideAccess ? undefined : readOnlyFieldsOf(runtime, collection.descriptor, args.user, mode));
  const input = validateInput(body, collection.descriptor, { mode, allowHidden: args.trusted, readOnly });
  if (checkRelations && input.errors.length === 0) input.errors.push(...(await findMissingRelations(args, [input.set])));
  const caller = { user: args.user, req: args.req, overrideAccess: args.overrideAccess };
  for (const transform of runtime.hooks.transformInput) await transform({ collection: collection.descriptor, input, op: mode, ...caller });
  return input;
}

/** The body as access rules receive it (`data`): any object, else undefined. */
export function bodyOf(body: unknown): Record<string, unknown> | undefined {
  return typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : undefined;
}
