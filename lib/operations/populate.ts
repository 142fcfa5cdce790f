// Replaces relationship ids with related records, batched: one query per relation field and level,
// whatever the number of rows. Related records obey their collection's read access and hidden fields.
//
// Batched rather than one `$lookup`: related reads stay in findReadable, where read rules, soft delete and
// hidden fields apply as on every other read (bench/population.js found no clear winner: docs/performance.md).
import { Types } from 'mongoose';
import type { PopulateTree } from '../query/types';
import type { RawDoc } from '../schema/to-record';
import { findReadable } from './find-readable';
import { presentFor } from './present-records';
import type { OperationArgs } from './runtime';
import { isObjectId } from '../util/object-id';

export interface PopulateArgs extends OperationArgs {
  /** Raw lean rows; populated fields are replaced in place with serialized related records. */
  rows: RawDoc[];
  tree: PopulateTree;
}

function collectIds(rows: RawDoc[], field: string): Types.ObjectId[] {
  const seen = new Map<string, Types.ObjectId>();
  for (const row of rows) {
    const value = row[field];
    for (const item of Array.isArray(value) ? value : [value]) {
      if (isObjectId(item)) seen.set(item.toHexString(), item);
    }
  }
  return [...seen.values()];
}

function replaceIds(value: unknown, byId: ReadonlyMap<string, unknown>): unknown {
  // Ids whose record is gone or not readable stay ids: the parent still says what it points at.
  const swap = (item: unknown) => (isObjectId(item) ? byId.get(item.toHexString()) ?? item : item);
  return Array.isArray(value) ? value.map(swap) : swap(value);
}

function replaceField(rows: RawDoc[], fieldName: string, byId: ReadonlyMap<string, unknown>): void {
  for (const row of rows) {
    if (row[fieldName] !== undefined && row[fieldName] !== null) row[fieldName] = replaceIds(row[fieldName], byId);
  }
}

/** A relation to records a feature keeps outside the collections (files): one load, no deeper levels. */
async function populateFromSource(args: PopulateArgs, fieldName: string, relationTo: string): Promise<void> {
  const source = args.runtime.hooks.relationSources.find((s) => s.slug === relationTo);
  if (!source) return;
  const ids = collectIds(args.rows, fieldName);
  if (ids.length === 0) return;
  replaceField(args.rows, fieldName, await source.load(args, ids));
}

async function populateField(args: PopulateArgs, fieldName: string, subtree: PopulateTree): Promise<void> {
  // A name the client asked to populate: it may name no field.
  const { fields } = args.collection.descriptor;
  if (!Object.hasOwn(fields, fieldName)) return;
  const field = fields[fieldName];
  if (!field.relationTo) return;
  const related = args.runtime.collections.get(field.relationTo);
  if (!related) return populateFromSource(args, fieldName, field.relationTo);
  const ids = collectIds(args.rows, fieldName);
  if (ids.length === 0) return;
  const relatedRows = await findReadable(args, related, ids, related.projection);
  if (relatedRows.length === 0) return;
  if (Object.keys(subtree).length) await populateRows({ ...args, collection: related, rows: relatedRows, tree: subtree });
  // Each related record as its own collection presents it to this caller: its read hooks, its field access.
  const records = await presentFor({ ...args, collection: related }, relatedRows);
  replaceField(args.rows, fieldName, new Map(relatedRows.map((row, index) => [String(row._id), records[index]])));
}

/** Populates every field of the tree on the rows (fields of one level in parallel). */
export async function populateRows(args: PopulateArgs): Promise<void> {
  const entries = Object.entries(args.tree);
  if (entries.length === 0 || args.rows.length === 0) return;
  await Promise.all(entries.map(([field, subtree]) => populateField(args, field, subtree)));
}
