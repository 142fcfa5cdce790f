// Preview links: a token that shows one record's working copy to whoever holds it.
// TODO(preview): build it.
import type { ApiRecord } from '../../schema/to-record';
import type { OperationArgs } from '../runtime';

/** The working copy `token` opens, presented as an anonymous reader sees it; 401 for a wrong, expired, revoked or other record's token. */
export function findDraftByPreview(args: OperationArgs & { id: string; token: string }): Promise<ApiRecord> {
  return Promise.reject(new Error(`content-router: preview links are not built yet (${args.id})`));
}
