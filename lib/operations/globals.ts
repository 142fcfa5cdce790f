// Singleton globals: read (defaults before the first write) and upserting partial update.
import type { Request } from 'express';
import type { AuthUser } from '../config/types';
import { NotFoundError } from '../errors';
import type { WhereNode } from '../query/types';
import { assertValidInput } from '../schema/validate-input';
import type { RawDoc } from '../schema/to-record';
import { checkAccess } from './access';
import { bodyOf, prepareInput } from './prepare-input';
import { buildFilter } from './build-filter';
import { publishWrite, type CollectionRuntime, type Runtime } from './runtime';
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

/**
 * The filter of the global document, ANDed with the rule's where-constraint when it returned one: a stored
 * document that does not match it (or none stored yet) is then a 404, for reads and writes alike.
 */
async function globalFilter(args: GlobalArgs, constraint: WhereNode | undefined): Promise<Record<string, unknown>> {
  const _id = args.global.descriptor.slug;
  if (!constraint) return { _id };
  const filter = await buildFilter({ ...args, collection: args.global, nodes: [constraint] });
  return { $and: [{ _id }, filter] };
}

function notFound(global: CollectionRuntime): NotFoundError {
  // Worded like an unknown global, so a constrained one cannot be told apart from a missing one.
  return new NotFoundError(`No global "${global.descriptor.slug}".`);
}

/** Returns the global document, or its defaults (no timestamps) before anything was written. */
export async function findGlobal(args: GlobalArgs): Promise<Record<string, unknown>> {
  const { global } = args;
  const constraint = await checkAccess({ ...args, collection: global, op: 'read' });
  const row = await global.model.findOne(await globalFilter(args, constraint), global.projection).lean<RawDoc>();
  if (row) return toGlobalRecord(global, row);
  if (constraint) throw notFound(global);
  const defaults = new global.model({ _id: global.descriptor.slug }).toObject() as RawDoc;
  return toGlobalRecord(global, defaults);
}

/** Creates or partially updates the global document. */
export async function updateGlobal(args: GlobalArgs & { data: unknown }): Promise<Record<string, unknown>> {
  const { global, runtime } = args;
  const constraint = await checkAccess({ ...args, collection: global, op: 'update', data: bodyOf(args.data) });
  const input = await prepareInput({ ...args, collection: global }, args.data, 'update');
  assertValidInput(input.errors, 'The global is not valid.');
  const change: Record<string, unknown> = { $set: input.set };
  if (input.unset.length) change.$unset = Object.fromEntries(input.unset.map((name) => [name, 1]));
  let row: RawDoc | null;
  try {
    row = await global.model
      // Under a constraint only a stored document that matches it is updated (never upserted past it).
      .findOneAndUpdate(await globalFilter(args, constraint), change, {
        upsert: !constraint,
        returnDocument: 'after',
        runValidators: true,
        setDefaultsOnInsert: true,
      })
      .lean<RawDoc>();
  } catch (error) {
    rethrowWriteError(error);
  }
  if (!row) throw notFound(global);
  publishWrite(runtime, global, 'update', [global.descriptor.slug], [...Object.keys(input.set), ...input.unset], [row]);
  return toGlobalRecord(global, row);
}
