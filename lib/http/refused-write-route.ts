// A write route whose request may be refused before its operation runs (a bad credential's 401, a missing
// If-Match's 428): the refusal is told to the audit log here, as the operation tells its own
// (operations/refused-write.ts); an error the operation told already is not told again.
import type { Request } from 'express';
import { type RefusedWrite, hearsRefusals, isUntoldRefusal, noteRefusedWrite } from '../operations/refused-write';
import { requestUser } from './request-user';
import type { RouteHandler } from './route-table';

/** `handler`, telling the audit log of a refusal of the write `write` describes (the record: `req.params.id`). */
export function refusalsHeard(write: Pick<RefusedWrite, 'collection' | 'action'> & { runtime: Parameters<typeof requestUser>[0] }, handler: RouteHandler): RouteHandler {
  const { runtime } = write;
  return async (req: Request, res, next) => {
    if (!hearsRefusals(runtime)) return handler(req, res, next);
    try {
      await handler(req, res, next);
    } catch (error) {
      if (isUntoldRefusal(error)) {
        // Who asked: the credential's user (checked once per request), or nobody when the credential failed.
        const user = await requestUser(runtime, req).catch(() => null);
        noteRefusedWrite({ ...write, user, req, id: req.params.id }, error);
      }
      throw error;
    }
  };
}
