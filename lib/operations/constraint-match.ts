// Access constraints evaluated on a document in memory (sift evaluates Mongo filters), so a create or
// an update is checked against the state it would leave before anything is written: no reader and no
// change event ever sees a record the rule forbids.
import sift from 'sift';
import type { WhereNode } from '../query/types';
import type { RawDoc } from '../schema/to-record';
import { ForbiddenError } from '../errors';
import { type DescribedArgs, accessDenied } from './access';
import { buildFilter } from './build-filter';

/**
 * True when `doc` matches the constraint. Relation paths in it are resolved to id lists first (as on reads),
 * so every constraint becomes a plain Mongo filter and means exactly what it means on reads.
 */
export async function matchesConstraint(args: DescribedArgs, doc: RawDoc, constraint: WhereNode | undefined): Promise<boolean> {
  return (await constraintTest(args, constraint))(doc);
}

/** The constraint as a test of documents, its filter built once: for checking many documents against one rule. */
export async function constraintTest(args: DescribedArgs, constraint: WhereNode | undefined): Promise<(doc: RawDoc) => boolean> {
  if (!constraint) return () => true;
  return sift(await buildFilter({ ...args, nodes: [constraint], deleted: true }));
}

/**
 * Throws 401/403 unless every document matches its constraint (one filter built per distinct constraint).
 * With several documents (a batch) the 403 lists every item outside its rule by index.
 */
export async function assertWithinConstraints(
  args: DescribedArgs,
  checks: ReadonlyArray<{ doc: RawDoc; constraint: WhereNode | undefined }>,
): Promise<void> {
  const filters = new Map<WhereNode, (doc: RawDoc) => boolean>();
  const denied: number[] = [];
  for (const [index, { doc, constraint }] of checks.entries()) {
    if (!constraint) continue;
    let test = filters.get(constraint);
    if (!test) {
      test = await constraintTest(args, constraint);
      filters.set(constraint, test);
    }
    if (!test(doc)) denied.push(index);
  }
  if (denied.length === 0) return;
  if (!args.user || checks.length === 1) throw accessDenied(args.user);
  throw new ForbiddenError(
    `${denied.length} of the records are outside your access rule; nothing was written.`,
    'forbidden',
    denied.map((index) => ({ index, message: 'this record is outside your access rule', code: 'forbidden' })),
  );
}
