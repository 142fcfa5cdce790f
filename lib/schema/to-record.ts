// Raw Mongo documents -> API records: `id` not `_id`, no `__v`, hidden fields gone, unset fields null,
// ObjectIds as strings, dates as ISO-8601 with milliseconds. Built once per collection, run per row.
import { toIsoString } from '../util/iso-date';
import { isObjectId } from '../util/object-id';
import type { CollectionDescriptor, FieldDescriptor } from './descriptors';

export type ApiRecord = Record<string, unknown> & { id: string };
export type RawDoc = Record<string, unknown>;
export type RecordSerializer = (doc: RawDoc, select?: ReadonlySet<string>) => ApiRecord;

function toPlainValue(value: unknown): unknown {
  if (value instanceof Date) return toIsoString(value);
  if (isObjectId(value)) return value.toHexString();
  return value;
}

function convert(field: FieldDescriptor, value: unknown): unknown {
  // Text, numbers and booleans (most values) are as they are.
  if (typeof value !== 'object' || value === null) return value;
  if (field.valueType === 'json') return value;
  // Populated relations arrive as ready records (plain objects); ids and dates are converted.
  if (Array.isArray(value)) return value.map(toPlainValue);
  return toPlainValue(value);
}

/**
 * Creates the serializer of a collection: only visible fields, in a stable order. `includeHidden`: hidden
 * fields too, for server code (hooks) that sees the stored record whole.
 */
export function createRecordSerializer(collection: CollectionDescriptor, includeHidden = false): RecordSerializer {
  const visible = Object.values(collection.fields).filter((f) => (includeHidden || !f.hidden) && f.name !== 'id');
  // Timestamps go last so records read { id, ...fields, createdAt, updatedAt, deletedAt }.
  const ordered = [...visible.filter((f) => !f.system), ...visible.filter((f) => f.system)];
  return (doc, select) => {
    const record: ApiRecord = { id: String(toPlainValue(doc._id)) };
    for (const field of ordered) {
      if (select && !select.has(field.name)) continue;
      // Every visible field is in every record: one without a value (never set, or cleared with null)
      // reads as null, so a record's shape never depends on its history.
      const value = doc[field.name];
      record[field.name] = value === undefined ? null : convert(field, value);
    }
    return record;
  };
}
