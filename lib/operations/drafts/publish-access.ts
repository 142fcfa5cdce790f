// On a drafts collection (or global) the collection itself holds the published records: writing one of them
// directly (POST without ?draft=true, PATCH, DELETE, bulk writes) publishes, so it needs the `publish` rule
// besides the operation's own. Working copies and collections without drafts need the operation's rule alone.
import { combineAnd } from '../../query';
import type { WhereNode } from '../../query/types';
import { type AccessCheck, checkAccess } from '../access';

/** True when writes to `collection`'s records are writes to published records of a drafts collection. */
export function publishesOnWrite(collection: AccessCheck['collection']): boolean {
  const { descriptor } = collection;
  return descriptor.versions?.drafts === true && descriptor.variant !== 'draft';
}

/**
 * checkAccess for a create, update or delete; on a drafts collection's published records also the publish
 * rule, whose constraint (a where) narrows the records the write may touch as the operation's own does.
 */
export async function checkWriteAccess(check: AccessCheck & { op: 'create' | 'update' | 'delete' }): Promise<WhereNode | undefined> {
  const constraint = await checkAccess(check);
  if (!publishesOnWrite(check.collection)) return constraint;
  return combineAnd(constraint, await checkAccess({ ...check, op: 'publish' }));
}
