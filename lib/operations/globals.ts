// Singleton globals: read (defaults before the first write) and upserting partial update.
import type { Request } from 'express';
import type { AuthUser } from '../config/types';
import { ValidationError } from '../errors';
import { validateInput } from '../schema/validate-input';
import type { RawDoc } from '../schema/to-record';
import { checkAccess } from './access';
import type { CollectionRuntime, Runtime } from './runtime';
import { rethrowWriteError } from './write-errors';

export interface GlobalArgs {
  runtime: Runtime;
  global: CollectionRuntime;
  user: AuthUser | null;
  req?: Request;
  overrideAccess?: boolean;
  trusted?: boolean;
}

/** A global reads as its fields plus timestamps; it has no id of its own beyond its slug. */
function toGlobalRecord(global: CollectionRuntime, row: RawDoc): Record<string, unknown> {
  const { id: _slug, ...fields } = global.serialize(row);
  return fields;
}

/** Returns the global document, or its defaults (no timestamps) before anything was written. */
export async function findGlobal(args: GlobalArgs): Promise<Record<string, unknown>> {
  const { global } = args;
  await checkAccess({ ...args, collection: global, op: 'read' });
  const slug = global.descriptor.slug;
  const row = await global.model.findById(slug, global.projection).lean<RawDoc>();
  if (row) return toGlobalRecord(global, row);
  const defaults = new global.model({ _id: slug }).toObject() as RawDoc;
  return toGlobalRecord(global, defaults);
}

/** Creates or partially updates the global document. */
export async function updateGlobal(args: GlobalArgs & { data: unknown }): Promise<Record<string, unknown>> {
  const { global, runtime } = args;
  const data = typeof args.data === 'object' && args.data !== null ? (args.data as Record<string, unknown>) : undefined;
  await checkAccess({ ...args, collection: global, op: 'update', data });
  const input = validateInput(args.data, global.descriptor, { mode: 'update', allowHidden: args.trusted });
  if (input.errors.length) throw new ValidationError('The global is not valid.', input.errors);
  const change: Record<string, unknown> = { $set: input.set };
  if (input.unset.length) change.$unset = Object.fromEntries(input.unset.map((name) => [name, 1]));
  let row: RawDoc | null;
  try {
    row = await global.model
      .findOneAndUpdate({ _id: global.descriptor.slug }, change, {
        upsert: true,
        returnDocument: 'after',
        runValidators: true,
        setDefaultsOnInsert: true,
        projection: global.projection,
      })
      .lean<RawDoc>();
  } catch (error) {
    rethrowWriteError(error);
  }
  runtime.events.emit('change', { type: 'update', collection: `globals/${global.descriptor.slug}`, ids: [global.descriptor.slug] });
  return toGlobalRecord(global, row!);
}
