// Preview links: a token that shows one record's working copy to whoever holds it, no credential needed.
// The token is checked on every use against its stored row: the digest must be known, the row must name
// this record, and its expiry (on the router's clock) must be ahead. Anything else is one 401, whichever
// it was, and never a fallback to the published record. The copy is shown as an anonymous reader would
// see the record once published: hidden fields out, field read rules asked for no user, read hooks run.
import { NotFoundError, UnauthorizedError } from '../../errors';
import type { ApiRecord } from '../../schema/to-record';
import { nowMs } from '../../util/clock';
import { hashToken } from '../../util/random-token';
import { withAfterError } from '../after-error';
import { presentFor } from '../present-records';
import { previewTarget, workingCopyRow } from '../preview/preview-target';
import { previewTokens } from '../preview/preview-tokens';
import type { OperationArgs } from '../runtime';

/** What util/random-token.ts makes: 32 bytes, base64url. Anything else is refused before the database is asked. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

function invalidToken(): UnauthorizedError {
  return new UnauthorizedError('This preview link is invalid, expired or revoked.', 'invalid_preview_token');
}

/** The working copy `token` opens, presented as an anonymous reader sees it; 401 for a wrong, expired, revoked or other record's token. */
export function findDraftByPreview(args: OperationArgs & { id: string; token: string }): Promise<ApiRecord> {
  try {
    const target = previewTarget(args, args.id);
    // The reader is anonymous whoever holds the link: its rules, hooks and field view are those of no user.
    const reader: OperationArgs = { runtime: args.runtime, collection: target.published, user: null, req: args.req, state: args.state, overrideAccess: false };
    return withAfterError(reader, 'read', async () => {
      if (typeof args.token !== 'string' || !TOKEN.test(args.token)) throw invalidToken();
      const row = await previewTokens(args.runtime.connection).findOne({ _id: hashToken(args.token) });
      // TTL monitors run about once a minute, and some servers have none: the row's own expiry decides.
      const opens = row && row.slug === target.slug && row.global === target.global && row.record === target.record && row.expiresAt.getTime() > nowMs(args.runtime.config.clock);
      if (!opens) throw invalidToken();
      const copy = await workingCopyRow(reader, target, { projection: target.published.projection });
      if (!copy) throw previewGone(target.global, target.slug);
      const [record] = await presentFor(reader, [copy]);
      // A global reads as its fields, without the id its document is stored under.
      if (target.global) delete (record as Record<string, unknown>).id;
      return record;
    });
  } catch (error) {
    return Promise.reject(error);
  }
}

function previewGone(global: boolean, slug: string) {
  return new NotFoundError(global ? `No global "${slug}".` : 'No record with this id.');
}
