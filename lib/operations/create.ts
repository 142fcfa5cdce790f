// The create operation: access -> validate (every error at once) -> insert -> serialize -> notify.
import type { Request } from 'express';
import type { AuthUser } from '../config/types';
import { ValidationError } from '../errors';
import { validateInput } from '../schema/validate-input';
import type { ApiRecord, RawDoc } from '../schema/to-record';
import { checkAccess } from './access';
import type { CollectionRuntime, Runtime } from './runtime';
import { rethrowWriteError } from './write-errors';

export interface CreateArgs {
  runtime: Runtime;
  collection: CollectionRuntime;
  data: unknown;
  user: AuthUser | null;
  req?: Request;
  overrideAccess?: boolean;
  /** Server-side callers may write hidden fields. */
  trusted?: boolean;
}

/** Creates one record and returns it as the API shows it. */
export async function create(args: CreateArgs): Promise<ApiRecord> {
  const { runtime, collection } = args;
  const data = typeof args.data === 'object' && args.data !== null ? (args.data as Record<string, unknown>) : undefined;
  await checkAccess({ ...args, op: 'create', data });
  const input = validateInput(args.data, collection.descriptor, { mode: 'create', allowHidden: args.trusted });
  if (input.errors.length) throw new ValidationError('The record is not valid.', input.errors);
  let row: RawDoc;
  try {
    const doc = await collection.model.create(input.set);
    row = doc.toObject() as RawDoc;
  } catch (error) {
    rethrowWriteError(error);
  }
  const record = collection.serialize(row);
  runtime.events.emit('change', { type: 'create', collection: collection.descriptor.slug, ids: [record.id] });
  return record;
}
