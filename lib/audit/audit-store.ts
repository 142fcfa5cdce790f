// The audit log's MongoDB collection, `content-router.audit`: entries are inserted (in the session of the
// change they record, where there is one) and read; nothing updates or deletes one but the TTL index that
// enforces `retention`. Indexes from the start: time (the TTL index, or a plain one when every entry is kept),
// resource (collection or global, id, time) and actor (id, time), each ending in `_id` for the keyset order.
import type { ClientSession, Connection, mongo } from 'mongoose';
import { Types } from 'mongoose';
import type { AuditEntry } from './audit-entry';

export const AUDIT_COLLECTION = 'content-router.audit';

/** An entry as stored: its id is the `_id`. */
export type AuditRow = Omit<AuditEntry, 'id'> & { _id: Types.ObjectId };

/** The name of the index on `at` alone: the TTL index when entries expire. */
const TIME_INDEX = 'at';

export interface AuditStore {
  /** Stores an entry (in `session` when given); answers it with its id. */
  insert(entry: Omit<AuditEntry, 'id'>, session?: ClientSession): Promise<AuditEntry>;
  /** Up to `limit` rows matching `filter` in `sort` order. */
  find(filter: Record<string, unknown>, sort: Record<string, 1 | -1>, limit: number): Promise<AuditRow[]>;
  /** A driver cursor over the rows matching `filter` in `sort` order, read in batches (the export). */
  stream(filter: Record<string, unknown>, sort: Record<string, 1 | -1>): mongo.FindCursor<AuditRow>;
  /** The indexes, the time index expiring entries after `retentionMs` (0: never). */
  createIndexes(retentionMs: number): Promise<void>;
}

/** The entry a row is, as the routes, the local API and the sink see it. */
export function entryOfRow(row: AuditRow): AuditEntry {
  const { _id, ...rest } = row;
  return { id: _id.toHexString(), ...rest };
}

/** A driver error saying an index of that name exists with other options (the retention changed). */
function isIndexConflict(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === 85 || code === 86;
}

export function createAuditStore(connection: Connection): AuditStore {
  const rows = () => connection.collection<AuditRow>(AUDIT_COLLECTION);
  return {
    async insert(entry, session) {
      const row = { _id: new Types.ObjectId(), ...entry } as AuditRow;
      await rows().insertOne(row, session ? { session } : {});
      return entryOfRow(row);
    },
    find(filter, sort, limit) {
      return rows().find(filter, { sort, limit }).toArray();
    },
    stream(filter, sort) {
      return rows().find(filter, { sort, batchSize: 500 });
    },
    async createIndexes(retentionMs) {
      const time: mongo.IndexDescription = { key: { at: 1 }, name: TIME_INDEX, ...(retentionMs > 0 && { expireAfterSeconds: Math.floor(retentionMs / 1000) }) };
      await rows()
        .createIndexes([time])
        .catch(async (error: unknown) => {
          // A changed retention: the time index is made again with the new expiry (or none).
          if (!isIndexConflict(error)) throw error;
          await rows().dropIndex(TIME_INDEX);
          await rows().createIndexes([time]);
        });
      await rows().createIndexes([
        { key: { at: -1, _id: -1 }, name: 'at_id' },
        { key: { 'resource.collection': 1, 'resource.id': 1, at: -1, _id: -1 }, name: 'resource' },
        { key: { 'resource.global': 1, at: -1, _id: -1 }, name: 'resource_global' },
        { key: { 'actor.id': 1, at: -1, _id: -1 }, name: 'actor' },
      ]);
    },
  };
}
