// THE SEAM: every change of a record the router stores passes through changeStored() exactly once, inside
// the session (the transaction, where the server has them) that stored it, with the record before and
// after, the actor and the fields changed. It is where a version of the record and an audit entry are to be
// written next, in that same session: a feature adds a ChangeRecorder to `runtime.hooks.changeStored`,
// and from then on every write of a collection it records (all of them, unless it says which: `records`)
// runs in a transaction where the server has them, so the record and what the recorder writes commit or
// roll back together (pipeline.ts storeOne; multi-record writes always do, store-each.ts).
// Publishing on the change bus (subscribers: caches, realtime, webhooks) happens later, after the commit,
// and only for changes that were stored: publishChange().
import type { ClientSession } from 'mongoose';
import type { ChangeRecorder, CollectionRuntime, OperationArgs, Runtime, StoredChange, WriteBy } from '../runtime';
import { noteWrite } from '../request-state';
import { isSystemActor } from '../../config/user';

export type { ChangeRecorder, StoredChange, WriteBy } from '../runtime';

/**
 * The one place where "a change was stored": called once per stored change, in the store's session, before
 * it commits. Runs every recorder features added; notes the write for the request's trace (what an
 * Idempotency-Key keeps depends on it).
 */
export async function changeStored(by: WriteBy, change: StoredChange, session: ClientSession | undefined): Promise<void> {
  noteWrite(by);
  for (const record of by.runtime.hooks.changeStored) await record(change, session, by);
}

/** Who and what made a change, as every stored change carries it: the actor, where it came from, its version op. */
export function changeMadeBy(args: Pick<OperationArgs, 'user' | 'actor' | 'req' | 'origin' | 'versionOp'>): Pick<StoredChange, 'actor' | 'origin' | 'versionOp'> {
  const actor = args.actor ?? args.user;
  const origin = args.origin ?? (isSystemActor(actor) ? actor.name : args.req ? 'rest' : 'local');
  return { actor, origin, ...(args.versionOp && { versionOp: args.versionOp }) };
}

/** True when a write of `collection` must run in a transaction (where the server has them): something records its changes. */
export function recordsChanges(runtime: Runtime, collection: Pick<CollectionRuntime, 'descriptor' | 'versions'>): boolean {
  return runtime.hooks.changeStored.some((recorder) => recorder.records?.(collection) ?? true);
}

/**
 * `recorder`, run only for the changes of collections `records` accepts, and saying so (so the others' writes
 * skip the transaction).
 */
export function recorderFor(records: NonNullable<ChangeRecorder['records']>, recorder: (change: StoredChange, session: ClientSession | undefined, by: WriteBy) => Promise<void>): ChangeRecorder {
  return Object.assign(async (change: StoredChange, session: ClientSession | undefined, by: WriteBy) => (records(change.collection) ? recorder(change, session, by) : undefined), { records });
}

/** The changes already on the bus: a multi-record write publishes each as soon as it is committed. */
const published = new WeakSet<StoredChange>();

/**
 * Tells the change bus of a stored (and committed) change, with the rows subscribers check access on; once
 * per change, however many steps ask. Publishing as soon as the change is committed matters: consumers drop
 * the change stream's echo of a local write only if the local event came first.
 */
export function publishChange(by: WriteBy, change: StoredChange): void {
  if (published.has(change)) return;
  published.add(change);
  const { runtime } = by;
  for (const committed of runtime.hooks.changeCommitted) committed(change, by);
  // A working copy is nobody's news but its editors': no cache, subscriber or webhook hears of it.
  if (change.collection.descriptor.variant === 'draft') return;
  const { slug, isGlobal } = change.collection.descriptor;
  const rows = change.idOnly ? undefined : change.type === 'delete' ? change.before : change.after;
  runtime.changes.emitChange({
    scope: isGlobal ? 'global' : 'collection',
    slug,
    type: change.type,
    ids: [change.id],
    ...(change.fields ? { fields: [...change.fields] } : {}),
    ...(rows ? { docs: [rows] } : {}),
    ...(change.stamps ? { stamps: change.stamps } : {}),
    ...(change.type === 'update' && change.before && !change.idOnly ? { before: [change.before] } : {}),
    // The router's own writes say so (auth's flows): subscribers such as auth's session check tell them apart.
    ...(isSystemActor(change.actor) ? { actor: change.actor } : {}),
    origin: 'local',
    timestamp: runtime.config.clock.now(),
  });
}
