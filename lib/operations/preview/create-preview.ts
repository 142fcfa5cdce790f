// Makes a preview link of one record's working copy: a random token (256 bits) the caller hands to whoever
// should see the draft, valid until it expires or the record's links are revoked. Needs the readDrafts
// rule, matched against the working copy; the token is returned once and only its digest is kept.
import { isSystemActor } from '../../config/user';
import { NotFoundError, ValidationError } from '../../errors';
import { after } from '../../util/clock';
import { parseDuration } from '../../util/duration';
import { createRandomToken, hashToken } from '../../util/random-token';
import { checkAccess, requireScope } from '../access';
import type { OperationArgs } from '../runtime';
import { changeMadeBy } from '../write/stored-change';
import { type PreviewCreator, previewTokens } from './preview-tokens';
import { previewTarget, workingCopyRow } from './preview-target';

/** How long a link lives unless asked otherwise. */
export const DEFAULT_PREVIEW_MS = 3_600_000;
/** The longest a link may live: a forgotten link stops working within a week. */
export const MAX_PREVIEW_MS = 7 * 86_400_000;

export interface CreatePreviewArgs extends OperationArgs {
  /** The record's id; a global's: its slug (or nothing). */
  id?: string;
  /** A duration (`1h`, `7d`, or a number of seconds); default `1h`, at most `7d`. */
  expiresIn?: unknown;
}

/** A new preview link. */
export interface PreviewLink {
  /** The token, in the clear: the only time it exists so. */
  token: string;
  /** Where the link opens the draft, relative to the router's mount: `/<slug>/<id>/draft?preview=<token>`. */
  path: string;
  expiresAt: Date;
}

/** The lifetime `expiresIn` asks for, in milliseconds; a 400 naming `expiresIn` for anything else. */
export function previewLifetime(expiresIn: unknown): number {
  if (expiresIn === undefined) return DEFAULT_PREVIEW_MS;
  const ms = parseDuration(expiresIn);
  if (ms === undefined) {
    throw new ValidationError('expiresIn must be a positive duration such as "1h" or "7d", or a number of seconds.', [
      { field: 'expiresIn', message: 'must be a positive duration such as "1h" or "7d", or a number of seconds', code: 'invalid_duration' },
    ]);
  }
  if (ms > MAX_PREVIEW_MS) {
    throw new ValidationError('expiresIn must be at most 7d.', [{ field: 'expiresIn', message: 'must be at most 7d', code: 'too_long' }]);
  }
  return ms;
}

/** Who made the link, as its row keeps it. */
function creatorOf(args: OperationArgs): PreviewCreator {
  const { actor, origin } = changeMadeBy(args);
  const user = actor && !isSystemActor(actor) ? actor : undefined;
  return { ...(user && { id: user.id }), ...(user?.collection && { collection: user.collection }), origin };
}

/** Stores a new link of the record's working copy and returns its token. */
export async function createPreview(args: CreatePreviewArgs): Promise<PreviewLink> {
  const target = previewTarget(args, args.id);
  // The body is checked before access: a malformed request is a 400 whoever sends it, and costs no rule.
  const lifetime = previewLifetime(args.expiresIn);
  const base = { runtime: args.runtime, user: args.user, req: args.req, overrideAccess: args.overrideAccess, state: args.state };
  // Making or revoking a link stores something: an API key needs the write scope, whatever readDrafts allows.
  if (!args.overrideAccess) requireScope(args.user, 'update');
  const constraint = await checkAccess({ ...base, collection: target.published, op: 'readDrafts', id: target.global ? undefined : target.record });
  if (!(await workingCopyRow(base, target, { constraint, projection: { _id: 1 } }))) {
    throw new NotFoundError(target.global ? `No global "${target.slug}".` : 'No record with this id.');
  }
  const token = createRandomToken();
  const { clock } = args.runtime.config;
  const expiresAt = after(clock, lifetime);
  await previewTokens(args.runtime.connection).insertOne({
    _id: hashToken(token),
    slug: target.slug,
    global: target.global,
    record: target.record,
    expiresAt,
    createdAt: clock.now(),
    createdBy: creatorOf(args),
  });
  const path = target.global ? `/globals/${target.slug}/draft` : `/${target.slug}/${target.record}/draft`;
  return { token, path: `${path}?preview=${token}`, expiresAt };
}
