// How one hub entry looks to the readers of one read rule. An update can move a record into a where-rule's
// view (it is published now) or out of it (it was unpublished): readers it left get a `delete`
// ("left-view"), readers it entered a `create` ("entered-view"), the others the update itself, or nothing.
// Whether the record was in the view before is read from its row before the change when the publisher had
// it; else, when the change named its fields and none of them is one the rule reads, it did not move;
// else it is unknown, and a reader who cannot read the record now gets the `delete` (harmless to a client
// that never had it), one who can the `create` (a client adds or replaces the record by id).
import type { ViewRule } from './read-matcher';
import type { HubEntry } from './realtime-event';

/** The entry as readers under `rule` receive it, or undefined when they receive nothing of it. */
export function viewOf(rule: ViewRule, entry: HubEntry): HubEntry | undefined {
  const { event, row } = entry;
  if (!row) return rule.open ? entry : undefined;
  // Nothing an update changes moves a record in or out of this rule's view: a plain test.
  if (event.type !== 'update' || rule.reads.size === 0) return rule.test(row) ? entry : undefined;
  // Every reader under one rule gets the same answer: worked out once per entry and rule.
  const views = (entry.views ??= new Map<object, HubEntry | null>());
  const known = views.get(rule);
  if (known !== undefined) return known ?? undefined;
  const now = rule.test(row);
  const before = wasInView(rule, entry, now);
  const seen = now ? (before === true ? entry : entered(entry)) : before === false ? undefined : left(entry);
  views.set(rule, seen ?? null);
  return seen;
}

/** Whether the record was in the rule's view just before the update; undefined when that cannot be told. */
function wasInView(rule: ViewRule, entry: HubEntry, now: boolean): boolean | undefined {
  if (entry.before) return rule.test(entry.before);
  if (entry.changed && !intersects(rule.reads, entry.changed)) return now;
  return undefined;
}

function intersects(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  for (const name of b) if (a.has(name)) return true;
  return false;
}

/** The update as a create, for readers it brought the record to: the record as it is now, no changed fields. */
function entered(entry: HubEntry): HubEntry {
  const { id, collection, docId, doc, timestamp } = entry.event;
  entry.entered ??= { event: { id, type: 'create', reason: 'entered-view', collection, docId, doc, timestamp }, row: entry.row };
  return entry.entered;
}

/** The update as a delete, for readers it took the record from: without the record, as every delete. */
function left(entry: HubEntry): HubEntry {
  const { id, collection, docId, timestamp } = entry.event;
  entry.left ??= { event: { id, type: 'delete', reason: 'left-view', collection, docId, timestamp }, row: entry.row };
  return entry.left;
}
