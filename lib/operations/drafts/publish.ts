// Publish and unpublish: the working copy becomes the published record, or the published record goes.
// TODO(publish): build them.
import type { ApiRecord } from '../../schema/to-record';
import type { IfMatch } from '../precondition';
import type { OperationArgs } from '../runtime';

export interface PublishArgs extends OperationArgs {
  /** The record's id (a global: its slug). */
  id: string;
  /** The working copy's ETag the caller saw (412 when stale). */
  ifMatch?: IfMatch;
}

/** Publishes the record's working copy; answers the published record. */
export function publish(args: PublishArgs): Promise<ApiRecord> {
  return Promise.reject(new Error(`content-router: publish is not built yet (${args.id})`));
}

/** Removes the published record, keeping its working copy; answers the working copy. */
export function unpublish(args: PublishArgs): Promise<ApiRecord> {
  return Promise.reject(new Error(`content-router: unpublish is not built yet (${args.id})`));
}
