// Reading the audit log: the fields a `where` may name (as the collections' where dialects name them, every
// operator of the field's type), a keyset cursor newest first, and the filter a read rule adds. The entries
// are described as a collection the query layer knows, so a where, a page size and a cursor are parsed and
// refused (400, naming the parameter) exactly as a collection list's are.
import type { QueryOptions } from '../config/resolve-config';
import type { FieldConfig } from '../config/types';
import { combineAnd, decodeCursor, encodeCursor, parseLimit, parseWhere, toMongoFilter } from '../query';
import { cursorFilter, reverseSort } from '../query/cursor-filter';
import { rejectQuery } from '../query/reject';
import type { SortItem, WhereNode } from '../query/types';
import type { CollectionDescriptor, FieldDescriptor } from '../schema/descriptors';
import { describeCollection } from '../schema/describe-collection';
import { describeField } from '../schema/descriptors';
import type { AuditAction, AuditEntry } from './audit-entry';
import { type AuditRow, type AuditStore, entryOfRow } from './audit-store';

/** Every action an entry may record (the `action` filter's values). */
export const AUDIT_ACTIONS: readonly AuditAction[] = Object.freeze([
  'create', 'update', 'delete', 'restore', 'publish', 'unpublish', 'draft', 'schedule', 'upload', 'upload.delete',
  'register', 'login', 'login.failed', 'lockout', 'logout', 'logout-all', 'refresh.reuse', 'password.reset',
  'email.verify', 'apikey.create', 'apikey.revoke', 'webhook.retry',
]);
export const ACTOR_TYPES: readonly AuditEntry['actor']['type'][] = Object.freeze(['user', 'apiKey', 'host', 'anonymous', 'system']);

/** The fields a where names, by their path in an entry. */
const FILTER_FIELDS: Readonly<Record<string, FieldConfig>> = {
  action: { type: 'select', options: [...AUDIT_ACTIONS] },
  'actor.id': { type: 'text' },
  'actor.type': { type: 'select', options: [...ACTOR_TYPES] },
  'resource.collection': { type: 'text' },
  'resource.global': { type: 'text' },
  'resource.id': { type: 'text' },
  'outcome.status': { type: 'number' },
  at: { type: 'date' },
};
export const FILTER_NAMES: readonly string[] = Object.freeze(Object.keys(FILTER_FIELDS));

export const AUDIT_PAGINATION = Object.freeze({ defaultLimit: 50, maxLimit: 500 });

/** The entries as the query layer sees a collection: the filter fields, and `id` (the cursor's tie-breaker). */
const ENTRIES: CollectionDescriptor = (() => {
  const base = describeCollection({ slug: 'content-router.audit', fields: {}, pagination: AUDIT_PAGINATION });
  const fields: Record<string, FieldDescriptor> = { id: base.fields.id };
  for (const [name, config] of Object.entries(FILTER_FIELDS)) fields[name] = describeField(name, config);
  return Object.freeze({ ...base, fields: Object.freeze(fields) });
})();

/** Newest first; `_id` breaks ties within a millisecond. */
const NEWEST_FIRST: readonly SortItem[] = Object.freeze([
  { field: 'at', path: 'at', direction: -1 },
  { field: 'id', path: '_id', direction: -1 },
]);
const MONGO_SORT = { at: -1, _id: -1 } as const;

const PARAMETERS = ['where', 'limit', 'perPage', 'cursor'];

/** A read of the log: what the caller asked for and what its read rule allows, as one Mongo filter. */
export interface AuditQuery {
  readonly filter: Record<string, unknown>;
  readonly limit: number;
  /** Where the page starts (a cursor the previous page gave); undefined: the newest entries. */
  readonly cursor?: ReturnType<typeof decodeCursor>;
}

/** A where on entries: the client's (400 for an unknown field or operator) or a read rule's (trusted). */
export function parseAuditWhere(input: unknown, trusted = false): WhereNode | undefined {
  return parseWhere(input, ENTRIES, new Map(), { trusted });
}

/** The parameters of `GET /audit` (and the export, without the page ones) or of `api.audit.find`. */
export function parseAuditQuery(raw: Record<string, unknown>, options: QueryOptions, allowed: WhereNode | undefined, paged = true): AuditQuery {
  const names = paged ? PARAMETERS : ['where'];
  for (const name of Object.keys(raw)) {
    if (!names.includes(name) && raw[name] !== undefined) rejectQuery(name, `unknown parameter (the audit log takes ${names.join(', ')})`, 'unknown_parameter');
  }
  const where = combineAnd(parseAuditWhere(raw.where), allowed);
  const filter = toMongoFilter(where);
  if (!paged) return { filter, limit: 0 };
  const limit = parseLimit(raw, ENTRIES, options);
  const cursor = raw.cursor === undefined || raw.cursor === '' ? undefined : decodeCursor(raw.cursor, NEWEST_FIRST, ENTRIES);
  return { filter, limit, ...(cursor && { cursor }) };
}

/** One page of entries, newest first, in the collections' cursor envelope. */
export interface AuditPage {
  data: AuditEntry[];
  meta: { hasNextPage: boolean; hasPrevPage: boolean; nextCursor: string | null; prevCursor: string | null };
}

/** Reads one page: a cursor's `prev` walks back towards the newest entries. */
export async function readAuditPage(store: AuditStore, query: AuditQuery): Promise<AuditPage> {
  const { cursor, limit } = query;
  const backwards = cursor?.direction === 'prev';
  const sort = backwards ? reverseSort(NEWEST_FIRST) : NEWEST_FIRST;
  const filter = cursor ? { $and: [query.filter, cursorFilter(NEWEST_FIRST, cursor)] } : query.filter;
  const mongoSort = Object.fromEntries(sort.map((item) => [item.path, item.direction]));
  const rows = await store.find(filter, mongoSort, limit + 1);
  const more = rows.length > limit;
  const page = rows.slice(0, limit);
  if (backwards) page.reverse();
  const first = page.at(0);
  const last = page.at(-1);
  const hasNextPage = backwards || more;
  const hasPrevPage = backwards ? more : cursor !== undefined;
  const at = (row: AuditRow | undefined, direction: 'next' | 'prev') => (row ? encodeCursor(row, NEWEST_FIRST, direction, ENTRIES.slug) : null);
  return {
    data: page.map(entryOfRow),
    meta: {
      hasNextPage: hasNextPage && last !== undefined,
      hasPrevPage: hasPrevPage && first !== undefined,
      nextCursor: hasNextPage ? at(last, 'next') : null,
      prevCursor: hasPrevPage ? at(first, 'prev') : null,
    },
  };
}

/** The export's order: the same as a page's. */
export const EXPORT_SORT: Record<string, 1 | -1> = MONGO_SORT;
