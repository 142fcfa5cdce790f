// What a write answers with: the stored row through afterChange (which may replace what the caller
// receives but cannot undo the write: its failure is logged and given to afterError), then through the
// read steps every record takes on its way to a caller (present-records.ts). A failure of those steps
// cannot undo the write either: the caller gets its success status and the record's id alone.
//
// Each answer has an ETag, the tag of the record as a GET now returns it: the answer itself, unless
// afterChange changed it. Then the answer is not the record's representation and carries no tag (reading
// the record gives it); presenting the record twice would run its read hooks twice.
import type { AfterChangeArgs, HookRecord } from '../config/hooks';
import type { ApiRecord, RawDoc } from '../schema/to-record';
import { callerView } from './field-view';
import { hookBase, runReplacing } from './hooks';
import { reportAfterWrite } from './after-error';
import { presentRecord } from './present-records';
import type { OperationArgs } from './runtime';

export interface WrittenRecord {
  /** The row as the write left it (hidden fields included). */
  row: RawDoc;
  /** The body as written, after the before-hooks. */
  data: Record<string, unknown>;
  /** Updates and restores: the record before the change, when hooks read it. */
  previousDoc?: HookRecord;
}

/** The body without write-only fields (a password as sent): once stored, no hook needs it, and an audit hook logging `data` must not log it. */
function withoutWriteOnly({ collection }: OperationArgs, data: Record<string, unknown>): Record<string, unknown> {
  const fields = collection.descriptor.fields;
  if (!Object.keys(data).some((key) => Object.hasOwn(fields, key) && fields[key].writeOnly)) return data;
  return Object.fromEntries(Object.entries(data).filter(([key]) => !(Object.hasOwn(fields, key) && fields[key].writeOnly)));
}

/** Answers that are not the record a GET returns (afterChange changed them, or only the id is left): no tag. */
const untagged = new WeakSet();

/** True when a write's answer is the record's current representation: its ETag is a hash of it. */
export function isRepresentation(answer: object): boolean {
  return !untagged.has(answer);
}

type Shape<T> = (record: ApiRecord) => T;

/**
 * The record the caller receives for a stored write. `shape` turns a record into the answer (a global's
 * drops its id); the tag is of the shaped representation.
 */
export async function answerWrite<T extends object = ApiRecord>(args: OperationArgs, operation: AfterChangeArgs['operation'], written: WrittenRecord, shape?: Shape<T>): Promise<T> {
  const { record, representation } = await answerRecord(args, operation, written);
  const shaped = shape ? shape(record) : (record as unknown as T);
  if (!representation) untagged.add(shaped);
  return shaped;
}

/** The answer's record; `representation` false when it is not the record as a GET returns it. */
async function answerRecord(args: OperationArgs, operation: AfterChangeArgs['operation'], written: WrittenRecord): Promise<{ record: ApiRecord; representation: boolean }> {
  const { collection } = args;
  const hooks = collection.descriptor.hooks.afterChange;
  if (hooks.length === 0 && !collection.readShaped) return { record: collection.serialize(written.row), representation: true };
  // Copies: hooks may change what they get in place, and the row is also the change event's.
  let doc: HookRecord = structuredClone(collection.serializeAll(written.row));
  let changed = false;
  if (hooks.length) {
    const before = JSON.stringify(doc);
    const base = { ...hookBase(args, operation), operation, previousDoc: written.previousDoc, data: withoutWriteOnly(args, written.data), id: String(written.row._id) };
    try {
      doc = await runReplacing<AfterChangeArgs>(collection, 'hooks.afterChange', hooks, base, 'doc', doc);
    } catch (error) {
      await reportAfterWrite(args, operation, error);
      // As if no afterChange had run: not the copy a failing hook may have changed before it threw.
      doc = structuredClone(collection.serializeAll(written.row));
    }
    changed = JSON.stringify(doc) !== before;
  }
  try {
    return { record: await presentRecord({ ...args, viewed: (await callerView(args)).of(collection), operation }, doc), representation: !changed };
  } catch (error) {
    // The write is stored and cannot be undone, so the caller hears of its success; but the record could not
    // be shaped for it (a read hook or a field read rule failed), so it gets only the id, never a record the
    // failed step was to shape. The failure is logged and given to afterError, as afterChange's is.
    await reportAfterWrite(args, operation, error);
    return { record: { id: String(written.row._id) }, representation: false };
  }
}
