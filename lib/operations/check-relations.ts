// Relationship values must name records that exist: an id that names nothing is a 400 naming the field,
// not a dangling reference. "Exists" means readable by the caller, so the check is no oracle for ids
// the caller could not read anyway; soft-deleted records do not count. One query per relation field.
import type { Types } from 'mongoose';
import type { ErrorDetail } from '../errors';
import { findReadable } from './find-readable';
import type { WriteArgs } from './runtime';
import { isObjectId } from '../util/object-id';

function idsOf(value: unknown): Types.ObjectId[] {
  return (Array.isArray(value) ? value : [value]).filter((item): item is Types.ObjectId => isObjectId(item));
}

/**
 * Errors for relationship values in `sets` that name no record the caller may read. `indexed` adds each
 * set's index to its errors (batch creates).
 */
export async function findMissingRelations(args: WriteArgs, sets: readonly Record<string, unknown>[], indexed = false): Promise<ErrorDetail[]> {
  const errors: ErrorDetail[] = [];
  const fields = Object.values(args.collection.descriptor.fields).filter((f) => f.type === 'relationship' && f.relationTo);
  for (const field of fields) {
    const wanted = new Map<string, Types.ObjectId>();
    for (const set of sets) for (const id of idsOf(set[field.name])) wanted.set(id.toHexString(), id);
    if (wanted.size === 0) continue;
    // eslint-disable-next-line @typescript-eslint/no-non-null-assertion -- a relationship field names its collection, checked at start-up
    const related = args.runtime.collections.get(field.relationTo!)!;
    const rows = await findReadable(args, related, [...wanted.values()], { _id: 1 });
    const found = new Set(rows.map((row) => String(row._id)));
    sets.forEach((set, index) => {
      for (const id of idsOf(set[field.name])) {
        if (found.has(id.toHexString())) continue;
        errors.push({
          field: field.name,
          ...(indexed ? { index } : {}),
          message: `no ${field.relationTo} record with id ${id.toHexString()}`,
          code: 'unknown_relation',
        });
      }
    });
  }
  return errors;
}
