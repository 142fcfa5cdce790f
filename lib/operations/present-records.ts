// The last step of every record a caller receives (lists, gets, populated records, write answers,
// realtime events): stored row -> beforeRead (the whole record, hidden fields included) -> the caller's
// view (hidden and unreadable fields out, `fields` applied) -> field afterRead -> afterRead -> hidden and
// unreadable fields out again, whatever the hooks returned.
//
// A collection without read hooks or field read rules is serialized as it always was: one call per row.
import type { HookOperation, HookRecord } from '../config/hooks';
import type { ApiRecord, RawDoc } from '../schema/to-record';
import { type ViewedCollection, callerView } from './field-view';
import { type HookBase, callHook, hookBase, hookLabel, runReplacing } from './hooks';
import type { CollectionRuntime, OperationArgs } from './runtime';

export interface PresentArgs extends OperationArgs {
  /** The collection as the caller sees it (from callerView). */
  viewed: ViewedCollection;
  /** The operation the records answer: `read`, or the write whose answer they are. */
  operation?: HookOperation;
}

/** Rows to the records the operation's caller receives, in the caller's view (decided once per request). */
export async function presentFor(args: OperationArgs, rows: readonly RawDoc[], select?: readonly string[], operation?: HookOperation): Promise<ApiRecord[]> {
  const { collection } = args;
  if (!collection.readShaped) {
    const fields = select ? new Set(select) : undefined;
    const records = new Array<ApiRecord>(rows.length);
    for (let i = 0; i < rows.length; i++) records[i] = collection.serialize(rows[i], fields);
    return records;
  }
  const viewed = (await callerView(args)).of(collection);
  return presentRows({ ...args, viewed, operation }, rows, select);
}

/** Rows (raw, as stored) to the records this caller receives, `select` applied. */
export async function presentRows(args: PresentArgs, rows: readonly RawDoc[], select?: readonly string[]): Promise<ApiRecord[]> {
  const { collection, viewed } = args;
  const fields = select ? new Set(select) : undefined;
  const records = new Array<ApiRecord>(rows.length);
  if (!collection.readHooks) {
    for (let i = 0; i < rows.length; i++) records[i] = viewed.serialize(rows[i], fields);
    return records;
  }
  // One args base for every row's hooks: they share the request's context and the bound API.
  const base = hookBase(args, args.operation ?? 'read');
  // A copy per record: hooks may change it in place, and json values would otherwise be the stored row's,
  // shared with every other reader of that row (realtime subscribers, the writer's answer).
  for (let i = 0; i < rows.length; i++) records[i] = await presentRecord(args, structuredClone(collection.serializeAll(rows[i])), fields, base);
  return records;
}

/**
 * A whole record (every field, hidden ones included: as `serializeAll` gives it or as afterChange returned
 * it) to the record this caller receives.
 */
export async function presentRecord(args: PresentArgs, whole: HookRecord, fields?: ReadonlySet<string>, base: HookBase = hookBase(args, args.operation ?? 'read')): Promise<ApiRecord> {
  const { collection, viewed } = args;
  const hooks = collection.descriptor.hooks;
  const before = hooks.beforeRead.length ? await runReplacing(collection, 'hooks.beforeRead', hooks.beforeRead, base, 'doc', whole) : whole;
  let record = strip(collection, viewed, before, fields);
  for (const field of collection.fieldAfterRead) {
    if (!Object.hasOwn(record, field.name)) continue;
    const list = field.config.hooks!.afterRead!;
    for (let index = 0; index < list.length; index++) {
      const label = hookLabel(collection, `fields.${field.name}.hooks.afterRead`, index, list[index]);
      const value = await callHook(label, list[index], { value: record[field.name], field: field.name, collection: base.collection, operation: base.operation, doc: record, user: base.user, req: base.req, context: base.context });
      if (value !== undefined) record[field.name] = value;
    }
  }
  if (hooks.afterRead.length) record = strip(collection, viewed, await runReplacing(collection, 'hooks.afterRead', hooks.afterRead, base, 'doc', record), fields);
  return record as ApiRecord;
}

/**
 * A copy of `doc` without the fields this caller may not see (hidden or unreadable), and, with `fields`,
 * without the schema fields it did not select. Keys that are no field (computed by a hook) stay.
 */
function strip(collection: CollectionRuntime, viewed: ViewedCollection, doc: Record<string, unknown>, fields?: ReadonlySet<string>): Record<string, unknown> {
  const schema = collection.descriptor.fields;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(doc)) {
    const field = Object.hasOwn(schema, key) ? schema[key] : undefined;
    if (field && key !== 'id' && (field.hidden || viewed.unreadable.has(key) || (fields && !fields.has(key)))) continue;
    out[key] = value;
  }
  return out;
}
