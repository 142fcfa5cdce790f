// Revokes every preview link of one record: its rows go, so each of its tokens is a 401 from then on (the
// rows are the links: nothing else would still honour them). Needs the readDrafts rule, as making one does.
import { NotFoundError } from '../../errors';
import { checkAccess, requireScope } from '../access';
import type { OperationArgs } from '../runtime';
import { previewTokens } from './preview-tokens';
import { previewTarget, workingCopyRow } from './preview-target';

export interface RevokePreviewsArgs extends OperationArgs {
  /** The record's id; a global's: its slug (or nothing). */
  id?: string;
}

/** Deletes the record's preview links; answers how many there were (expired ones not yet cleared count too). */
export async function revokePreviews(args: RevokePreviewsArgs): Promise<{ revoked: number }> {
  const target = previewTarget(args, args.id);
  const base = { runtime: args.runtime, user: args.user, req: args.req, overrideAccess: args.overrideAccess, state: args.state };
  // Making or revoking a link stores something: an API key needs the write scope, whatever readDrafts allows.
  if (!args.overrideAccess) requireScope(args.user, 'update');
  const constraint = await checkAccess({ ...base, collection: target.published, op: 'readDrafts', id: target.global ? undefined : target.record });
  // A record the caller may not see is not there for it: its links are not its to revoke.
  if (constraint && !(await workingCopyRow(base, target, { constraint, projection: { _id: 1 } }))) {
    throw new NotFoundError(target.global ? `No global "${target.slug}".` : 'No record with this id.');
  }
  const { deletedCount } = await previewTokens(args.runtime.connection).deleteMany({ slug: target.slug, global: target.global, record: target.record });
  return { revoked: deletedCount };
}
