// Access constraints evaluated on a document in memory (sift evaluates Mongo filters), so a create or
// an update is checked against the state it would leave before anything is written: no reader and no
// change event ever sees a record the rule forbids.
import sift from 'sift';
import type { WhereNode } from '../query/types';
import type { RawDoc } from '../schema/to-record';
import { accessDenied } from './access';
import { buildFilter } from './build-filter';
import type { OperationArgs } from './operation-args';

/**
 * True when `doc` matches the constraint. Relation paths in it are resolved to id lists first (as on reads),
 * so every constraint becomes a plain Mongo filter and means exactly what it means on reads.
 */
export async function matchesConstraint(args: OperationArgs, doc: RawDoc, constraint: WhereNode | undefined): Promise<boolean> {
  if (!constraint) return true;
  const filter = await buildFilter({ ...args, nodes: [constraint], deleted: true });
  return sift(filter)(doc);
}

/** Throws 401/403 unless every document matches its constraint (one filter built per distinct constraint). */
export async function assertWithinConstraints(
  args: OperationArgs,
  checks: ReadonlyArray<{ doc: RawDoc; constraint: WhereNode | undefined }>,
): Promise<void> {
  const filters = new Map<WhereNode, (doc: RawDoc) => boolean>();
  for (const { doc, constraint } of checks) {
    if (!constraint) continue;
    let test = filters.get(constraint);
    if (!test) {
      test = sift(await buildFilter({ ...args, nodes: [constraint], deleted: true }));
      filters.set(constraint, test);
    }
    if (!test(doc)) throw accessDenied(args.user);
  }
}
