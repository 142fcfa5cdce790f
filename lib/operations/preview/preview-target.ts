// What every preview operation starts from: the record a link is for (a collection's record or a global),
// on a collection that keeps drafts, and its working copy. Operations may be handed the published
// collection or its working copies' runtime: both lead to the same pair.
import type { WhereNode } from '../../query/types';
import type { RawDoc } from '../../schema/to-record';
import type { DescribedArgs } from '../access';
import { buildFilter, liveRecordFilter } from '../build-filter';
import { checkRecordId } from '../record-id';
import type { CollectionRuntime, OperationArgs } from '../runtime';
import { draftsOff } from '../drafts/working-copy';

/** A record that may have preview links: its published collection, its working copies, and its stored id. */
export interface PreviewTarget {
  /** The collection (or global) as published: its hooks and read rules shape what a link shows. */
  published: CollectionRuntime;
  /** Its working copies. */
  drafts: CollectionRuntime;
  slug: string;
  global: boolean;
  /** The record's id as stored (lower-case hex; a global's slug). */
  record: string;
}

/**
 * The target of a preview operation on `args.collection` and `id` (a global: its slug, or nothing). A
 * collection without drafts is a 404 saying so; a malformed id a 404, as on every record route.
 */
export function previewTarget(args: Pick<OperationArgs, 'runtime' | 'collection'>, id: string | undefined): PreviewTarget {
  const { runtime } = args;
  const { slug, isGlobal } = args.collection.descriptor;
  const published = args.collection.descriptor.variant === 'draft' ? (isGlobal ? runtime.globals : runtime.collections).get(slug) : args.collection;
  const drafts = published?.drafts;
  if (!published || !drafts) throw draftsOff({ slug, isGlobal });
  return { published, drafts, slug, global: isGlobal, record: isGlobal ? slug : checkRecordId(id).toLowerCase() };
}

/**
 * The record's working copy as stored (hidden fields too unless `projection` leaves them out), or, for a
 * record that has none (it was created before drafts were switched on), its published record: that is its
 * working copy then. With `constraint` (the caller's readDrafts rule), only a copy that matches it counts.
 * Null when there is neither.
 */
export async function workingCopyRow(
  args: Omit<DescribedArgs, 'collection'>,
  target: PreviewTarget,
  options: { constraint?: WhereNode; projection?: Readonly<Record<string, 0 | 1>> } = {},
): Promise<RawDoc | null> {
  for (const copy of [target.drafts, target.published]) {
    const key = target.global ? { _id: target.slug } : liveRecordFilter(copy, target.record);
    const filter = options.constraint ? { $and: [key, await buildFilter({ ...args, collection: copy, nodes: [options.constraint], deleted: true })] } : key;
    const row = await copy.model.findOne(filter, options.projection).lean<RawDoc>();
    if (row) return row;
    // A working copy that exists but falls outside the rule hides the record: never its published state instead.
    if (options.constraint && copy === target.drafts && (await copy.model.exists(key))) return null;
  }
  return null;
}
