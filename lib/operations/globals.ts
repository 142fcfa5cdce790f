// Singleton globals: read (defaults before the first write) and upserting partial update. Their hooks
// (beforeChange, afterChange, afterRead, and fields') and field access run as a collection's do.
import type { Request } from 'express';
import type { RequestState } from './request-state';
import type { AuthUser } from '../config/types';
import { NotFoundError } from '../errors';
import type { WhereNode } from '../query/types';
import { assertValidInput } from '../schema/validate-input';
import type { RawDoc } from '../schema/to-record';
import { checkAccess } from './access';
import { assertUnanswered } from './answered';
import { bodyOf, prepareWrite } from './prepare-input';
import { buildFilter } from './build-filter';
import { hooksSeeOriginal, withAfterError } from './hooks';
import { presentFor } from './present-records';
import { publishWrite, type CollectionRuntime, type OperationArgs, type Runtime } from './runtime';
import { answerWrite } from './write-answer';
import { isDuplicateKeyError, rethrowWriteError } from './write-errors';
import { type IfMatch, assertTagMatches, conditionalMiss, tagsToMatch } from './precondition';
import { PreconditionFailedError } from '../errors';
import { atRevision } from '../schema/revision';

export interface GlobalArgs {
  runtime: Runtime;
  global: CollectionRuntime;
  user: AuthUser | null;
  req?: Request;
  overrideAccess?: boolean;
  trusted?: boolean;
  state?: RequestState;
  /** Updates: write only if the global as this caller reads it has one of these ETags (412 otherwise). */
  ifMatch?: IfMatch;
}

/** A global's args as every operation takes them: the global is the collection. */
function asOperation(args: GlobalArgs): OperationArgs & { trusted?: boolean } {
  return { runtime: args.runtime, collection: args.global, user: args.user, req: args.req, overrideAccess: args.overrideAccess, trusted: args.trusted, state: args.state };
}

/** A global reads as its fields plus timestamps; it has no id of its own beyond its slug. */
function withoutId(record: Record<string, unknown>): Record<string, unknown> {
  const { id: _slug, ...fields } = record;
  return fields;
}

/** The stored (or default) document as this caller receives it: afterRead hooks and field access applied. */
async function toGlobalRecord(args: GlobalArgs, row: RawDoc): Promise<Record<string, unknown>> {
  const [record] = await presentFor(asOperation(args), [row]);
  return withoutId(record);
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
export function findGlobal(args: GlobalArgs): Promise<Record<string, unknown>> {
  return withAfterError(asOperation(args), 'read', async () => {
    const { global } = args;
    const constraint = await checkAccess({ ...args, collection: global, op: 'read' });
    const row = await global.model.findOne(await globalFilter(args, constraint), global.projection).lean<RawDoc>();
    return toGlobalRecord(args, storedOrDefaults(args, row, constraint));
  });
}

/** The stored document, or before the first write its defaults (unless a constraint hides the global). */
function storedOrDefaults(args: GlobalArgs, row: RawDoc | null, constraint: WhereNode | undefined): RawDoc {
  if (row) return row;
  if (constraint) throw notFound(args.global);
  return new args.global.model({ _id: args.global.descriptor.slug }).toObject() as RawDoc;
}

/** Creates or partially updates the global document. */
export function updateGlobal(args: GlobalArgs & { data: unknown }): Promise<Record<string, unknown>> {
  return withAfterError(asOperation(args), 'update', () => writeGlobal(args));
}

async function writeGlobal(args: GlobalArgs & { data: unknown }): Promise<Record<string, unknown>> {
  const { global } = args;
  const operation = asOperation(args);
  const constraint = await checkAccess({ ...args, collection: global, op: 'update', data: bodyOf(args.data) });
  const filter = await globalFilter(args, constraint);
  const tags = tagsToMatch(args.ifMatch);
  const original = hooksSeeOriginal(global) || tags ? await global.model.findOne(filter).lean<RawDoc>() : undefined;
  // The global as GET shows it (its defaults before the first write) is what the tag names.
  if (tags) assertTagMatches(tags, await toGlobalRecord(args, storedOrDefaults(args, original ?? null, constraint)));
  const previousDoc = original ? withoutId(global.serializeAll(original)) : undefined;
  const { input, data } = await prepareWrite(operation, args.data, { mode: 'update', operation: 'update', originalDoc: previousDoc });
  assertValidInput(input.errors, 'The global is not valid.');
  const change: Record<string, unknown> = { $set: input.set };
  if (input.unset.length) change.$unset = Object.fromEntries(input.unset.map((name) => [name, 1]));
  assertUnanswered(args);
  let row: RawDoc | null;
  // With If-Match, only at the revision compared (none yet: only if nobody created the document meanwhile).
  const writeFilter = tags ? { $and: [filter, atRevision(original?._rev)] } : filter;
  try {
    row = await global.model
      // Under a constraint only a stored document that matches it is updated (never upserted past it).
      .findOneAndUpdate(writeFilter, change, {
        upsert: !constraint,
        returnDocument: 'after',
        runValidators: true,
        setDefaultsOnInsert: true,
      })
      .lean<RawDoc>();
  } catch (error) {
    // The upsert met a document created since the compare: its _id is taken.
    if (tags && isDuplicateKeyError(error)) throw new PreconditionFailedError();
    rethrowWriteError(error);
  }
  if (!row) return conditionalMiss(tags ? global.model.exists(filter) : Promise.resolve(false), notFound(global));
  publishWrite(args, global, 'update', [global.descriptor.slug], [...Object.keys(input.set), ...input.unset], [row]);
  return answerWrite(operation, 'update', { row, data, previousDoc }, withoutId);
}
