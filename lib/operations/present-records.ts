// The last step of every record a caller receives (lists, gets, populated records, write answers,
// realtime events): stored row -> beforeRead (the whole record, hidden fields included) -> the caller's
// view (hidden and unreadable fields out, `fields` applied) -> field afterRead -> afterRead -> hidden and
// unreadable fields out again, whatever the hooks returned.
//
// A collection without read hooks or field read rules is serialized as it always was: one call per row.
import type { HookOperation, HookRecord } from '../config/hooks';
import type { ApiRecord, RawDoc } from '../schema/to-record';
import { type ViewedCollection, callerView } from './field-view';
import type { CollectionDescriptor } from '../schema/descriptors';
import { type HookBase, callHook, fieldHookArgs, hookBase, hookLabel, runReplacing } from './hooks';
import type { OperationArgs } from './runtime';

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
  if (collection.descriptor.hooks.beforeRead.length) {
    for (let i = 0; i < rows.length; i++) records[i] = await presentRecord(args, isolated(collection.descriptor, collection.serializeAll(rows[i])), fields, base);
    return records;
  }
  // Without beforeRead nothing needs the whole record: the view's serializer gives the caller's record in one pass.
  for (let i = 0; i < rows.length; i++) {
    records[i] = await afterReadSteps(args, isolated(viewed.descriptor, viewed.serialize(rows[i], fields)), base, fields);
  }
  return records;
}

/** Per descriptor, the fields whose values may be objects shared with the stored row or other records: json, and relations (populated). */
const sharedByDescriptor = new WeakMap<CollectionDescriptor, readonly string[]>();

/**
 * `record` (fresh from a serializer) with a copy of every value it may share with the stored row (json
 * values) or with other records (populated ones): hooks may change it in place, and no change may reach
 * another reader of that row (realtime subscribers, the writer's answer). Its other values are its own.
 */
function isolated(descriptor: CollectionDescriptor, record: Record<string, unknown>): Record<string, unknown> {
  let names = sharedByDescriptor.get(descriptor);
  if (!names) {
    names = Object.values(descriptor.fields).filter((field) => field.valueType === 'json' || field.valueType === 'objectId').map((field) => field.name);
    sharedByDescriptor.set(descriptor, names);
  }
  for (let i = 0; i < names.length; i++) {
    const value = record[names[i]];
    if (typeof value === 'object' && value !== null) record[names[i]] = structuredClone(value);
  }
  return record;
}

/**
 * A whole record (every field, hidden ones included: as `serializeAll` gives it or as afterChange returned
 * it; a copy of its own) to the record this caller receives.
 */
export async function presentRecord(args: PresentArgs, whole: HookRecord, fields?: ReadonlySet<string>, base: HookBase = hookBase(args, args.operation ?? 'read')): Promise<ApiRecord> {
  const { collection, viewed } = args;
  const hooks = collection.descriptor.hooks;
  const before = hooks.beforeRead.length ? await runReplacing(collection, 'hooks.beforeRead', hooks.beforeRead, base, 'doc', whole) : whole;
  return afterReadSteps(args, strip(viewed, before, fields), base, fields);
}

/** The record in the caller's view (a copy of its own) through the field afterRead hooks, then afterRead. */
async function afterReadSteps(args: PresentArgs, viewedRecord: Record<string, unknown>, base: HookBase, fields?: ReadonlySet<string>): Promise<ApiRecord> {
  const record = args.collection.fieldAfterRead.length === 0 ? viewedRecord : await fieldAfterRead(args, viewedRecord, base);
  return collectionAfterRead(args, record, base, fields);
}

async function fieldAfterRead(args: PresentArgs, record: Record<string, unknown>, base: HookBase): Promise<Record<string, unknown>> {
  const { collection } = args;
  for (const field of collection.fieldAfterRead) {
    if (!Object.hasOwn(record, field.name)) continue;
    // eslint-disable-next-line @typescript-eslint/no-non-null-assertion -- fieldAfterRead lists only fields with afterRead hooks
    const list = field.config.hooks!.afterRead!;
    for (let index = 0; index < list.length; index++) {
      const label = hookLabel(collection, `fields.${field.name}.hooks.afterRead`, index, list[index]);
      const value = await callHook(label, list[index], fieldHookArgs(base, field.name, record[field.name], { doc: record }));
      if (value !== undefined) record[field.name] = value;
    }
  }
  return record;
}

async function collectionAfterRead(args: PresentArgs, record: Record<string, unknown>, base: HookBase, fields?: ReadonlySet<string>): Promise<ApiRecord> {
  const { collection, viewed } = args;
  const { afterRead } = collection.descriptor.hooks;
  if (afterRead.length === 0) return record as ApiRecord;
  return afterAfterRead(viewed, await runReplacing(collection, 'hooks.afterRead', afterRead, base, 'doc', record), fields);
}

/** The fields hidden in each view's descriptor (hidden ones and those the caller may not read), found once. */
const hiddenByDescriptor = new WeakMap<CollectionDescriptor, readonly string[]>();

/**
 * What afterRead returned, without the fields this caller may not see or did not select: a copy only when
 * it shows one, so the common record (nothing hidden in it, no `fields`) is not copied again.
 */
function afterAfterRead(viewed: ViewedCollection, doc: Record<string, unknown>, fields?: ReadonlySet<string>): ApiRecord {
  if (fields) return strip(viewed, doc, fields) as ApiRecord;
  let hidden = hiddenByDescriptor.get(viewed.descriptor);
  if (!hidden) {
    hidden = Object.values(viewed.descriptor.fields).filter((field) => field.hidden && field.name !== 'id').map((field) => field.name);
    hiddenByDescriptor.set(viewed.descriptor, hidden);
  }
  for (let i = 0; i < hidden.length; i++) {
    if (Object.hasOwn(doc, hidden[i])) return strip(viewed, doc) as ApiRecord;
  }
  return doc as ApiRecord;
}

/**
 * A copy of `doc` without the fields this caller may not see (hidden or unreadable), and, with `fields`,
 * without the schema fields it did not select. Keys that are no field (computed by a hook) stay.
 */
function strip(viewed: ViewedCollection, doc: Record<string, unknown>, fields?: ReadonlySet<string>): Record<string, unknown> {
  // The view's descriptor has the fields this caller may not read marked hidden.
  const schema = viewed.descriptor.fields;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(doc)) {
    const field = Object.hasOwn(schema, key) ? schema[key] : undefined;
    if (field && key !== 'id' && (field.hidden || (fields && !fields.has(key)))) continue;
    out[key] = value;
  }
  return out;
}
