// A reader's read access to one collection as an in-memory test of raw rows: the access rule's where-
// constraint, mapped to a Mongo filter by the query layer and evaluated with sift, so no event costs a query.
// Readers whose rules answer the same constraint (every anonymous reader, say) share one compiled rule, so
// an event is tested once per distinct rule, not once per reader (reader-view.ts keeps that answer).
// Where the collection shapes what a reader sees (read hooks, field read rules), the matcher also makes the
// reader's own copy of each event: its document through the read steps, its changed fields in its view.
import type { Request } from 'express';
import { mongo } from 'mongoose';
import sift from 'sift';
import type { AuthUser } from '../config/types';
import { checkAccess } from '../operations/access';
import { type ViewedCollection, callerView } from '../operations/field-view';
import { presentRows } from '../operations/present-records';
import { newRequestState } from '../operations/request-state';
import type { CollectionRuntime, Runtime } from '../operations/runtime';
import { mapRelationNodes, toMongoFilter } from '../query';
import type { WhereNode } from '../query/types';
import type { RawDoc } from '../schema/to-record';
import type { HubEntry } from './realtime-event';

/** A read rule's answer for one collection, compiled once for every reader it applies to. */
export interface ViewRule {
  /** True when a reader under this rule may read this stored row. */
  test(row: RawDoc): boolean;
  /** True when the rule puts no constraint on records: events without a row may go to its readers. */
  readonly open: boolean;
  /**
   * The stored fields (top-level names) the test reads, `deletedAt` included on soft-delete collections: an
   * update that changed none of them did not change whether a record is in this rule's view. Empty: no
   * update can.
   */
  readonly reads: ReadonlySet<string>;
}

export interface ReadMatcher {
  readonly rule: ViewRule;
  /** Present where the reader gets its own copy of events (read hooks, field read rules); rejects when a hook fails. */
  readonly personalize?: (entry: HubEntry) => Promise<HubEntry>;
}

/** The compiled rules of one router, shared by its readers; the least recently used go first past `max`. */
export interface RuleBook {
  /** The rule for this constraint (a Mongo filter) on `collection`, compiled at its first use. */
  rule(collection: CollectionRuntime, filter: Record<string, unknown>): ViewRule;
}

/** Distinct constraints kept compiled (a rule per user, such as an owner rule, makes one each). */
const MAX_RULES = 1000;
/** Longer constraints (long `in` lists) are compiled for their reader alone. */
const MAX_KEY_CHARS = 4096;

interface ReaderArgs {
  runtime: Runtime;
  collection: CollectionRuntime;
  user: AuthUser | null;
  req?: Request;
  rules: RuleBook;
}

/** The reader's copy of an entry: `doc` as this reader receives records, `updatedFields` without fields it cannot read. */
function personalizer(args: ReaderArgs, viewed: ViewedCollection): (entry: HubEntry) => Promise<HubEntry> {
  return async (entry) => {
    const { event, row } = entry;
    const copy = { ...event };
    // Each event is a read of its own: its hooks share a context of their own.
    if (copy.doc && row) [copy.doc] = await presentRows({ ...args, viewed, state: newRequestState() }, [row]);
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

/** The rules without a constraint, shared by every reader they apply to. */
const OPEN: ViewRule = Object.freeze({ test: () => true, open: true, reads: new Set<string>() });
const OPEN_LIVE: ViewRule = Object.freeze({ test: isLive, open: true, reads: new Set(['deletedAt']) });

/** The top-level stored fields a Mongo filter reads: its keys, through `$and`/`$or`/`$nor`, to their first segment. */
function fieldsRead(filter: unknown, into: Set<string>): Set<string> {
  if (Array.isArray(filter)) for (const part of filter) fieldsRead(part, into);
  else if (filter && typeof filter === 'object') {
    for (const [key, value] of Object.entries(filter)) {
      if (key.startsWith('$')) fieldsRead(value, into);
      else into.add(key.split('.')[0]);
    }
  }
  return into;
}

function compile(collection: CollectionRuntime, filter: Record<string, unknown>): ViewRule {
  const matches = sift(filter);
  const reads = fieldsRead(filter, new Set());
  if (!collection.descriptor.softDelete) return { test: matches, open: false, reads };
  reads.add('deletedAt');
  return { test: (row) => isLive(row) && matches(row), open: false, reads };
}

/** Creates a router's book of compiled rules. */
export function createRuleBook(max = MAX_RULES): RuleBook {
  // A Map iterates in insertion order: re-inserting on a hit makes the first key the least recently used.
  const rules = new Map<string, ViewRule>();
  return {
    rule(collection, filter) {
      // EJSON tells apart what JSON would not (a RegExp, an ObjectId, a Date).
      const key = `${collection.descriptor.slug}\0${mongo.BSON.EJSON.stringify(filter)}`;
      if (key.length > MAX_KEY_CHARS) return compile(collection, filter);
      let rule = rules.get(key);
      if (rule) rules.delete(key);
      else rule = compile(collection, filter);
      rules.set(key, rule);
      const oldest = rules.keys().next();
      if (rules.size > max && !oldest.done) rules.delete(oldest.value);
      return rule;
    },
  };
}

/**
 * Checks the reader's read access to `collection` (API-key read scope included) and returns its matcher.
 * Throws UnauthorizedError or ForbiddenError when the reader may not read the collection at all.
 */
export async function createReadMatcher(args: ReaderArgs): Promise<ReadMatcher> {
  const constraint = await checkAccess({ ...args, op: 'read' });
  const personalize = args.collection.readShaped ? personalizer(args, (await callerView(args)).of(args.collection)) : undefined;
  let rule: ViewRule;
  if (!constraint) rule = args.collection.descriptor.softDelete ? OPEN_LIVE : OPEN;
  else {
    // The tree has no negation, so a condition replaced by "false" can only narrow what matches.
    const resolved = await mapRelationNodes(constraint, () => Promise.resolve(UNMET));
    rule = args.rules.rule(args.collection, toMongoFilter(resolved));
  }
  return personalize ? { rule, personalize } : { rule };
}
