// Singleton globals: read (defaults before the first write) and upserting partial update, a user of the
// write pipeline (write/pipeline.ts). Their hooks
// (beforeChange, afterChange, afterRead, and fields') and field access run as a collection's do.
import type { Request } from 'express';
import type { RequestState } from './request-state';
import type { AuthUser } from '../config/types';
import { ConflictError, NotFoundError, PreconditionFailedError } from '../errors';
import type { WhereNode } from '../query/types';
import { assertValidInput } from '../schema/validate-input';
import type { RawDoc } from '../schema/to-record';
import type { VersionOp } from '../schema/version-schema';
import { checkAccess } from './access';
import { bodyOf, prepareWrite } from './prepare-input';
import { buildFilter } from './build-filter';
import { hooksSeeOriginal } from './hooks';
import { withAfterError } from './after-error';
import { presentFor } from './present-records';
import type { CollectionRuntime, OperationArgs, Runtime } from './runtime';
import { answerStored, storeOne, storeUpdate } from './write/pipeline';
import { atRevisionOf } from './write/store';
import { type IfMatch, assertTagMatches, conditionalMiss, tagsToMatch } from './precondition';
import { checkWriteAccess } from './drafts/publish-access';

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
  /** What the write is to the global's history when not an update (a restore from a version): OperationArgs.versionOp. */
  versionOp?: VersionOp;
  /** Where the call comes from when not REST (`mcp`): OperationArgs.origin, for the audit log. */
  origin?: string;
}

/** A global's args as every operation takes them: the global is the collection. */
function asOperation(args: GlobalArgs): OperationArgs & { trusted?: boolean } {
  return { runtime: args.runtime, collection: args.global, user: args.user, req: args.req, overrideAccess: args.overrideAccess, trusted: args.trusted, state: args.state, versionOp: args.versionOp, origin: args.origin };
}

/** A global reads as its fields plus timestamps; it has no id of its own beyond its slug. */
export function withoutId(record: Record<string, unknown>): Record<string, unknown> {
  const { id: _slug, ...fields } = record;
  return fields;
}

/** The stored (or default) document as this caller receives it: afterRead hooks and field access applied. */
export async function toGlobalRecord(args: GlobalArgs, row: RawDoc): Promise<Record<string, unknown>> {
  const [record] = await presentFor(asOperation(args), [row]);
  return withoutId(record);
}

/**
 * The filter of the global document, ANDed with the rule's where-constraint when it returned one: a stored
 * document that does not match it (or none stored yet) is then a 404, for reads and writes alike.
 */
export async function globalFilter(args: GlobalArgs, constraint: WhereNode | undefined): Promise<Record<string, unknown>> {
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
export function storedOrDefaults(args: GlobalArgs, row: RawDoc | null, constraint: WhereNode | undefined): RawDoc {
  if (row) return row;
  if (constraint) throw notFound(args.global);
  return new args.global.model({ _id: args.global.descriptor.slug }).toObject();
}

/** Creates or partially updates the global document. */
export function updateGlobal(args: GlobalArgs & { data: unknown }): Promise<Record<string, unknown>> {
  return withAfterError(asOperation(args), 'update', () => writeGlobal(args));
}

async function writeGlobal(args: GlobalArgs & { data: unknown }): Promise<Record<string, unknown>> {
  const { global } = args;
  const operation = asOperation(args);
  const constraint = await checkWriteAccess({ ...args, collection: global, op: 'update', data: bodyOf(args.data) });
  const filter = await globalFilter(args, constraint);
  const tags = tagsToMatch(args.ifMatch);
  const original = hooksSeeOriginal(global) || tags ? await global.model.findOne(filter).lean<RawDoc>() : undefined;
  // The global as GET shows it (its defaults before the first write) is what the tag names.
  if (tags) assertTagMatches(tags, await toGlobalRecord(args, storedOrDefaults(args, original ?? null, constraint)));
  const previousDoc = original ? withoutId(global.serializeAll(original)) : undefined;
  const { input, data } = await prepareWrite(operation, args.data, { mode: 'update', operation: 'update', originalDoc: previousDoc });
  assertValidInput(input.errors, 'The global is not valid.');
  // With If-Match, only at the revision compared (none yet: only if nobody created the document meanwhile).
  // Under a constraint only a stored document that matches it is updated (never upserted past it).
  const stored = tags ? (original ?? undefined) : undefined;
  const where = tags && !original ? atRevisionOf(filter, {}) : filter;
  let change;
  try {
    change = await storeOne(operation, (session) => storeUpdate(operation, { input, operation: 'update', filter: where, stored, upsert: !constraint, session }));
  } catch (error) {
    // The upsert met a document created since the compare: its _id is taken.
    if (tags && error instanceof ConflictError) throw new PreconditionFailedError();
    throw error;
  }
  if (!change) return conditionalMiss(tags ? global.model.exists(filter) : Promise.resolve(false), notFound(global));
  return answerStored(operation, change, data, { shape: withoutId, previousDoc });
}
