// Unique values of a multi-record write, checked while its records are prepared (before anything is
// written): a value repeated within the request, or held by a record outside it, is the client's mistake,
// reported for every item at once so the client fixes the whole request in one go. A value taken by
// another writer after this check is the store stage's 409 (the unique index still guards it).
import { ConflictError } from '../../errors';
import { conflictField } from '../write-errors';
import type { RawDoc } from '../../schema/to-record';
import type { CollectionRuntime } from '../runtime';
import type { ItemFailure, ItemName } from './store-each';

/** One item's values to store: its name, the values it sets, and (updates) its record's id. */
export interface UniqueCandidate {
  item: ItemName;
  set: Record<string, unknown>;
  _id?: unknown;
}

function sameValue(value: unknown): string {
  return value instanceof Date ? value.toISOString() : String(value);
}

/** The items whose unique values repeat within the request or are held by another record, by field. */
export async function uniqueValueFailures(collection: CollectionRuntime, candidates: readonly UniqueCandidate[]): Promise<ItemFailure[]> {
  const failures: Array<{ item: ItemName; field: string; at: number }> = [];
  for (const field of Object.values(collection.descriptor.fields)) {
    if (!field.unique || field.system) continue;
    const seen = new Map<string, number>();
    candidates.forEach((candidate, at) => {
      const value = candidate.set[field.name];
      if (value === undefined || value === null) return;
      const key = sameValue(value);
      if (seen.has(key)) failures.push({ item: candidate.item, field: field.name, at });
      else seen.set(key, at);
    });
    if (seen.size === 0) continue;
    const values = candidates.map((c) => c.set[field.name]).filter((v) => v !== undefined && v !== null);
    const held = await collection.model.find({ [field.name]: { $in: values } }, { [field.name]: 1 }).lean<RawDoc[]>();
    for (const row of held) {
      const at = seen.get(sameValue(row[field.name]));
      // A record keeping the value it holds is no conflict.
      if (at !== undefined && String(candidates[at]._id) !== String(row._id)) failures.push({ item: candidates[at].item, field: field.name, at });
    }
  }
  return failures.sort((a, b) => a.at - b.at).map(({ item, field }) => ({ item, error: new ConflictError(conflictField(collection.descriptor, field)) }));
}
