// A reader's read access to one collection as an in-memory test of raw rows: the access rule's where-
// constraint, mapped to a Mongo filter by the query layer and evaluated with sift, so no event costs a query.
// Where the collection shapes what a reader sees (read hooks, field read rules), the matcher also makes the
// reader's own copy of each event: its document through the read steps, its changed fields in its view.
import type { Request } from 'express';
import sift from 'sift';
import type { AuthUser } from '../config/types';
import { checkAccess } from '../operations/access';
import { type ViewedCollection, callerView } from '../operations/field-view';
import { presentRows } from '../operations/present-records';
import type { CollectionRuntime, Runtime } from '../operations/runtime';
import { mapRelationNodes, toMongoFilter } from '../query';
import type { WhereNode } from '../query/types';
import type { RawDoc } from '../schema/to-record';
import type { HubEntry } from './realtime-event';

export interface ReadMatcher {
  /** True when the reader may read this stored row. */
  test(row: RawDoc): boolean;
  /** True when the rule puts no constraint on records: events without a row may go to this reader. */
  readonly open: boolean;
  /** Present where the reader gets its own copy of events (read hooks, field read rules); rejects when a hook fails. */
  readonly personalize?: (entry: HubEntry) => Promise<HubEntry>;
}

interface ReaderArgs {
  runtime: Runtime;
  collection: CollectionRuntime;
  user: AuthUser | null;
  req?: Request;
}

/** The reader's copy of an entry: `doc` as this reader receives records, `updatedFields` without fields it cannot read. */
function personalizer(args: ReaderArgs, viewed: ViewedCollection): (entry: HubEntry) => Promise<HubEntry> {
  return async (entry) => {
    const { event, row } = entry;
    const copy = { ...event };
    // Each event is a read of its own: its hooks share a context of their own.
    if (copy.doc && row) [copy.doc] = await presentRows({ ...args, viewed, context: {} }, [row]);
    if (copy.updatedFields) copy.updatedFields = copy.updatedFields.filter((name) => !viewed.unreadable.has(name));
    return row ? { event: copy, row } : { event: copy };
  };
}

/** Conditions through a relationship would need queries per event: they count as unmet (deny, never leak). */
const UNMET: WhereNode = { kind: 'const', value: false };

/** Like REST reads, soft-deleted records are not shown (a delete event is checked on the row before it went). */
function isLive(row: RawDoc): boolean {
  return row.deletedAt === null || row.deletedAt === undefined;
}

/** The matchers of rules without a constraint, shared by every reader they apply to. */
const OPEN: ReadMatcher = Object.freeze({ test: () => true, open: true });
const OPEN_LIVE: ReadMatcher = Object.freeze({ test: isLive, open: true });

/**
 * Checks the reader's read access to `collection` (API-key read scope included) and returns its matcher.
 * Throws UnauthorizedError or ForbiddenError when the reader may not read the collection at all.
 */
export async function createReadMatcher(args: ReaderArgs): Promise<ReadMatcher> {
  const constraint = await checkAccess({ ...args, op: 'read' });
  const softDelete = args.collection.descriptor.softDelete;
  const personalize = args.collection.readShaped ? personalizer(args, (await callerView(args)).of(args.collection)) : undefined;
  if (!constraint) {
    const shared = softDelete ? OPEN_LIVE : OPEN;
    return personalize ? { ...shared, personalize } : shared;
  }
  // The tree has no negation, so a condition replaced by "false" can only narrow what matches.
  const resolved = await mapRelationNodes(constraint, async () => UNMET);
  const matches = sift(toMongoFilter(resolved));
  return { test: softDelete ? (row) => isLive(row) && matches(row) : matches, open: false, personalize };
}
