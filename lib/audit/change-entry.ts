// A stored change as an audit entry: the action it was (create... publish, draft, upload), who made it, which
// record, the names of the fields it changed (never hidden ones, never a value) and the request it came in.
import { recordedVersion } from '../operations/versions/record-version';
import type { StoredChange, WriteBy } from '../operations/runtime';
import { requestState } from '../operations/request-state';
import type { CollectionDescriptor } from '../schema/descriptors';
import { UPLOADS_SLUG } from '../schema/descriptors';
import { auditActor } from './audit-actor';
import type { AuditAction, AuditEntry } from './audit-entry';
import { auditRequest } from './request-info';

/** A record's keys that are not its fields' values as a client sets them: the id, the version key. */
const NOT_FIELDS: ReadonlySet<string> = new Set(['_id', '__v']);

/** What the change was to the record. */
export function actionOf(change: StoredChange): AuditAction {
  if (change.collection.descriptor.slug === UPLOADS_SLUG) return change.type === 'delete' ? 'upload.delete' : 'upload';
  if (change.versionOp && change.versionOp !== 'create' && change.versionOp !== 'update' && change.versionOp !== 'delete') return change.versionOp;
  if (change.collection.descriptor.variant === 'draft') return 'draft';
  return change.operation;
}

/** The version the change produced in its record's history (versioned collections; recorded before this entry is made). */
export function versionOf(change: StoredChange): number | undefined {
  return recordedVersion(change);
}

/** The names of the fields the change set, among those a client may know (no hidden field, no internal key). */
export function changedFieldsOf(change: StoredChange): string[] | undefined {
  const { descriptor } = change.collection;
  const named = change.type === 'create' ? Object.keys(change.after ?? {}) : change.type === 'update' ? (change.fields ?? []) : [];
  const visible = named.filter((name) => !NOT_FIELDS.has(name) && isVisibleField(descriptor, name));
  return visible.length ? visible : undefined;
}

function isVisibleField(descriptor: CollectionDescriptor, name: string): boolean {
  const field = Object.hasOwn(descriptor.fields, name) ? descriptor.fields[name] : undefined;
  // System fields (createdAt, updatedAt...) change with every write: they say nothing of what was changed.
  return field !== undefined && !field.system && !field.hidden && field.writeOnly !== true;
}

/** The entry of one stored change (its `id` is given when it is stored). */
export function entryOfChange(change: StoredChange, by: WriteBy, at: Date): Omit<AuditEntry, 'id'> {
  const { descriptor } = change.collection;
  const version = versionOf(change);
  const changedFields = changedFieldsOf(change);
  const state = by.state ?? (by.req && requestState(by.req));
  const idempotencyKey = state ? state.idempotency?.key : undefined;
  return {
    at,
    action: actionOf(change),
    actor: auditActor(change.actor),
    resource: descriptor.isGlobal ? { global: descriptor.slug } : { collection: descriptor.slug, id: change.id },
    ...(version !== undefined && { version }),
    ...(changedFields && { changedFields }),
    // A create answers 201; a first publish or a restore that brings a record back creates it, and answers 200.
    outcome: { status: change.type === 'create' && change.versionOp === undefined ? 201 : 200 },
    request: auditRequest(by.req, change.origin),
    ...(idempotencyKey !== undefined && { idempotencyKey }),
  };
}
