// A server-side change of a record: values the server computed itself (auth's hashed password, a
// verification flag, a token's hash), stored as they are, without a client's body, access rules or hooks,
// but through the same store, seam and change bus as every other write (write/pipeline.ts steps 3-5).
// The stable entry point for features that keep state on content records (auth's user records).
import type { AuthUser } from '../config/types';
import type { RawDoc } from '../schema/to-record';
import type { CollectionRuntime, Runtime } from './runtime';
import { changeOf, storeOne } from './write/pipeline';
import { updateRecord } from './write/store';
import { publishChange } from './write/stored-change';

export interface SystemUpdateArgs {
  runtime: Runtime;
  collection: CollectionRuntime;
  /** Which record: any filter (its id, a token's hash); the first match is changed. */
  filter: Record<string, unknown>;
  /** Values stored as they are: the server's own, never a client's body. */
  set: Record<string, unknown>;
  unset?: string[];
  /**
   * True (default): an edit of the record: updatedAt moves and subscribers are told. False: bookkeeping (a
   * token issued): updatedAt stays and nobody is told, though the change still passes the seam.
   */
  edit?: boolean;
  /** Who caused it, when someone did (the user changing their password). */
  actor?: AuthUser | null;
  /** Return the row without these fields (a projection of hidden fields). */
  projection?: Readonly<Record<string, 0>>;
}

/** Stores the change; answers the record as stored, or null when the filter matched none. */
export async function systemUpdate(args: SystemUpdateArgs): Promise<RawDoc | null> {
  const { runtime, collection, set, unset = [] } = args;
  const edit = args.edit !== false;
  const change = await storeOne({ runtime }, async (session) => {
    const after = await updateRecord(collection, args.filter, changeOf({ set, unset })!, { session, system: { timestamps: edit } });
    if (!after) return null;
    return { collection, type: 'update', operation: 'update', id: String(after._id), after, fields: [...Object.keys(set), ...unset], actor: args.actor ?? null };
  });
  if (!change) return null;
  if (edit) publishChange(args, change);
  if (!args.projection) return change.after!;
  const row = { ...change.after! };
  for (const hidden of Object.keys(args.projection)) delete row[hidden];
  return row;
}
