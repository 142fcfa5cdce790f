// The schema as one caller sees it (`GET /schema`, the MCP tools, the per-caller OpenAPI document): every
// collection and global on which its access rules let it do something, with what they let it do, and the
// fields it may read. Each rule is asked as a list asks it (no record, no body): `true` (or a where that
// constrains nothing) allows every record, a where `'some'`, anything else none. API-key scopes apply as on
// every operation.
import type { Request } from 'express';
import type { CallerSchema, CollectionPermissions, GlobalPermissions, Permission, SchemaCollection, SchemaField, SchemaGlobal } from '../config/caller-schema';
import type { ArrayItemType, AuthUser } from '../config/types';
import { ForbiddenError, UnauthorizedError } from '../errors';
import { type CollectionDescriptor, type FieldDescriptor, canonicalType } from '../schema/descriptors';
import { type AccessOperation, checkAccess } from './access';
import { callerView } from './field-view';
import { fieldWriteAnswer } from './prepare-input';
import type { RequestState } from './request-state';
import { type CollectionRuntime, type Runtime, readOnlyFieldsOf } from './runtime';

export interface DescribeSchemaArgs {
  runtime: Runtime;
  user: AuthUser | null;
  req?: Request;
  state?: RequestState;
  /** Every right and every field (server code describing the whole schema). */
  overrideAccess?: boolean;
}

/** The caller's schema: what it may see and do. */
export async function describeSchema(args: DescribeSchemaArgs): Promise<CallerSchema> {
  const { runtime } = args;
  const [collections, globals] = await Promise.all([
    Promise.all([...runtime.collections.values()].map((collection) => describeCollection(args, collection))),
    Promise.all([...runtime.globals.values()].map((global) => describeGlobal(args, global))),
  ]);
  const shown = collections.filter((c): c is SchemaCollection => c !== undefined);
  const described = { collections: shown, globals: globals.filter((g): g is SchemaGlobal => g !== undefined) };
  // A relationship to a collection the caller may do nothing with names no collection it knows of.
  const known = new Set([...shown.map((c) => c.slug), 'uploads']);
  for (const owner of [...described.collections, ...described.globals]) {
    for (const field of owner.fields) if (field.relationTo !== undefined && !known.has(field.relationTo)) delete field.relationTo;
  }
  return described;
}

/** The caller's rights on one collection or global: each rule's answer, as a list would ask it. */
export async function permissionsOf(args: DescribeSchemaArgs, collection: CollectionRuntime, ops: readonly AccessOperation[]): Promise<Record<string, Permission>> {
  const answers = await Promise.all(ops.map((op) => permission(args, collection, op)));
  return Object.fromEntries(ops.map((op, index) => [op, answers[index]]));
}

async function permission(args: DescribeSchemaArgs, collection: CollectionRuntime, op: AccessOperation): Promise<Permission> {
  try {
    // Judged as an operation judges it: a where that constrains nothing (`{}`) allows every record.
    return (await checkAccess({ ...args, collection, op })) === undefined ? true : 'some';
  } catch (error) {
    // A refusal (a falsy answer, a key without the scope, a rule throwing a 401 or 403) refuses. A rule that
    // fails otherwise when asked without a record (`({ data }) => data.owner === user.id`) decides from the
    // record: the operations judge each one. Not logged: it is how such rules are written, and every
    // request would log it.
    if (error instanceof ForbiddenError || error instanceof UnauthorizedError) return false;
    return 'some';
  }
}

/** The rules a collection has: the four, and the workflow's where it keeps versions. */
function operationsOf(descriptor: CollectionDescriptor): AccessOperation[] {
  const ops: AccessOperation[] = descriptor.isGlobal ? ['read', 'update'] : ['read', 'create', 'update', 'delete'];
  if (descriptor.versions?.drafts) ops.push('publish', 'readDrafts');
  if (descriptor.versions) ops.push('readVersions');
  return ops;
}

/** Both rights at once: none where either allows none, every record where both allow every one, else some. */
function both(a: Permission, b: Permission): Permission {
  if (a === false || b === false) return false;
  return a === true && b === true ? true : 'some';
}

/** A drafts collection's history holds its working copies: reading it needs readDrafts too, as the routes do. */
function historyNeedsDrafts<P extends { readVersions?: Permission; readDrafts?: Permission }>(descriptor: CollectionDescriptor, access: P): P {
  if (!descriptor.versions?.drafts || access.readVersions === undefined || access.readDrafts === undefined) return access;
  return { ...access, readVersions: both(access.readVersions, access.readDrafts) };
}

async function describeCollection(args: DescribeSchemaArgs, collection: CollectionRuntime): Promise<SchemaCollection | undefined> {
  const { descriptor } = collection;
  const access = historyNeedsDrafts(descriptor, (await permissionsOf(args, collection, operationsOf(descriptor))) as unknown as CollectionPermissions);
  if (Object.values(access).every((right) => right === false)) return undefined;
  return {
    slug: descriptor.slug,
    auth: descriptor.isAuth,
    softDelete: descriptor.softDelete,
    ...(descriptor.versions && { versions: { drafts: descriptor.versions.drafts } }),
    requireIfMatch: descriptor.requireIfMatch,
    access,
    fields: await fieldsOf(args, collection, access),
  };
}

async function describeGlobal(args: DescribeSchemaArgs, global: CollectionRuntime): Promise<SchemaGlobal | undefined> {
  const { descriptor } = global;
  const access = historyNeedsDrafts(descriptor, (await permissionsOf(args, global, operationsOf(descriptor))) as unknown as GlobalPermissions);
  if (Object.values(access).every((right) => right === false)) return undefined;
  return {
    slug: descriptor.slug,
    ...(descriptor.versions && { versions: { drafts: descriptor.versions.drafts } }),
    access,
    fields: await fieldsOf(args, global, access),
  };
}

/** The fields the caller may read (and write-only ones it may set), each saying whether it may set it. */
async function fieldsOf(args: DescribeSchemaArgs, collection: CollectionRuntime, access: { create?: Permission; update: Permission }): Promise<SchemaField[]> {
  const view = (await callerView(args)).of(collection);
  const [onCreate, onUpdate] = await Promise.all([
    access.create === undefined || access.create === false ? undefined : deniedWrites(args, collection.descriptor, 'create'),
    access.update === false ? undefined : deniedWrites(args, collection.descriptor, 'update'),
  ]);
  const fields: SchemaField[] = [];
  for (const field of Object.values(view.descriptor.fields)) {
    // A global is one record with no id of its own: its answers carry the fields and the timestamps.
    if (view.descriptor.isGlobal && field.name === 'id') continue;
    if (field.hidden && !(field.writeOnly && !view.unreadable.has(field.name))) continue;
    const described = describeField(field);
    if (!field.system) {
      if (onCreate?.has(field.name)) described.readOnlyOnCreate = true;
      if (onUpdate?.has(field.name)) described.readOnlyOnUpdate = true;
    }
    fields.push(described);
  }
  return fields;
}

/** The fields the caller may not set on a create or an update: the features' read-only fields and the fields' own rules. */
async function deniedWrites(args: DescribeSchemaArgs, descriptor: CollectionDescriptor, mode: 'create' | 'update'): Promise<ReadonlySet<string>> {
  if (args.overrideAccess) return new Set();
  const denied = new Set(readOnlyFieldsOf(args.runtime, descriptor, args.user, mode));
  const ruled = Object.values(descriptor.fields).filter((field) => field.config.access?.[mode] !== undefined);
  // Asked through the write's own memo: a write in the same request (an MCP tool) asks each rule once.
  const answers = await Promise.all(ruled.map((field) => fieldWriteAnswer(args, descriptor, field, mode)));
  ruled.forEach((field, index) => {
    if (answers[index] !== true) denied.add(field.name);
  });
  return denied;
}

function describeField(field: FieldDescriptor): SchemaField {
  const config = field.config as { type: string; of?: ArrayItemType; hasMany?: boolean; default?: unknown };
  const described: SchemaField = { name: field.name, type: field.system ? systemType(field) : config.type, required: field.required, unique: field.unique };
  if (field.type === 'array') described.of = canonicalType(config.of ?? 'text');
  if (field.options) described.options = field.options;
  // Files are stored apart (UPLOADS_SLUG) but reached at `/upload` and `/uploads/<filename>`: their public name.
  if (field.relationTo) described.relationTo = field.type === 'upload' ? 'uploads' : field.relationTo;
  if (field.isArray) described.hasMany = true;
  if (config.default !== undefined && typeof config.default !== 'function') described.default = config.default;
  if (field.system) described.system = true;
  if (field.writeOnly) described.writeOnly = true;
  return described;
}

/** The system fields have no config of their own: an id, or a date. */
function systemType(field: FieldDescriptor): string {
  return field.name === 'id' ? 'id' : 'date';
}
