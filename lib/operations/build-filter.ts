// Turns query and access conditions into one Mongo filter: ANDs them, resolves dotted relationship
// conditions through the related collection (under its read access, bounded, never truncated), adds soft delete.
import type { Types } from 'mongoose';
import { combineAnd, combineWhere, hasRelationNodes, mapRelationNodes, rejectTooManyRelationIds, toMongoFilter } from '../query';
import type { WhereNode } from '../query/types';
import { storagePath } from '../schema/descriptors';
import { type DescribedArgs, checkAccess, readConstraintOrNull } from './access';
import type { CollectionRuntime, OperationArgs, ResolvedRead } from './runtime';

export interface FilterArgs extends DescribedArgs {
  /** Conditions to AND; undefined entries are skipped. */
  nodes: Array<WhereNode | undefined>;
  /** Soft-delete collections: false hides deleted records, true shows them, 'only' shows only them. */
  deleted?: boolean | 'only';
}

/** The condition "id is one of `ids`" on a collection. */
export function idCondition(collection: CollectionRuntime, ids: Types.ObjectId[]): WhereNode {
  return { kind: 'ids', field: collection.descriptor.fields.id, ids };
}

function softDeleteCondition(collection: FilterArgs['collection'], deleted: FilterArgs['deleted']): Record<string, unknown> | undefined {
  if (!collection.descriptor.softDelete || deleted === true) return undefined;
  return deleted === 'only' ? { deletedAt: { $ne: null } } : { deletedAt: null };
}

/**
 * What `includeDeleted` adds to a read: it needs the delete rule, and that rule's constraint limits which
 * deleted records show (live ones follow the read rule alone), so it never widens what the caller may see.
 */
export async function deletedScope(args: OperationArgs, requested: boolean): Promise<{ deleted: boolean; node?: WhereNode }> {
  const { descriptor } = args.collection;
  if (!requested || !descriptor.softDelete) return { deleted: false };
  const constraint = await checkAccess({ ...args, op: 'delete' });
  if (!constraint) return { deleted: true };
  const live: WhereNode = { kind: 'field', field: descriptor.fields.deletedAt, op: 'eq', value: null };
  return { deleted: true, node: combineWhere('or', [live, constraint]) };
}

/** Builds the Mongo filter for the collection; relation conditions are resolved to id lists first. */
export async function buildFilter(args: FilterArgs): Promise<Record<string, unknown>> {
  const node = combineAnd(...args.nodes);
  const resolved = node && hasRelationNodes(node) ? await mapRelationNodes(node, (relation) => resolveRelation(args, relation)) : node;
  return withSoftDelete(args.collection, args.deleted ?? false, resolved ? toMongoFilter(resolved) : {});
}

/**
 * The filter of a list read once its access is resolved: the query's conditions, the read rule's
 * constraint and the soft-delete scope (what a list pages through, and what its total and a count count).
 */
export function readFilter(read: ResolvedRead, where: WhereNode | undefined): Promise<Record<string, unknown>> {
  return buildFilter({ ...read.args, nodes: [where, read.constraint, read.deleted.node], deleted: read.deleted.deleted });
}

/**
 * The filter of one live record by id, with nothing else to combine: what buildFilter gives for it,
 * without a wait. The id stays text (24 hex digits, checked): Mongoose casts it by the schema.
 */
export function liveRecordFilter(collection: CollectionRuntime, id: string): Record<string, unknown> {
  return withSoftDelete(collection, false, { [storagePath(collection.descriptor.fields.id.name)]: id });
}

function withSoftDelete(collection: FilterArgs['collection'], deleted: FilterArgs['deleted'], filter: Record<string, unknown>): Record<string, unknown> {
  const softDelete = softDeleteCondition(collection, deleted);
  if (!softDelete) return filter;
  return Object.keys(filter).length ? { $and: [filter, softDelete] } : softDelete;
}

type RelationNode = Extract<WhereNode, { kind: 'relation' }>;

/**
 * Runs the inner condition on the related collection and returns the matching ids as an `ids` node.
 * For a client's condition more than `maxRelationIds` matches is a 400 (read as far as one past the
 * limit, never truncated); an access rule's condition is not bounded.
 */
async function resolveRelation(args: FilterArgs, relation: RelationNode): Promise<WhereNode> {
  const related = args.runtime.collections.get(relation.relationTo);
  if (!related) return { kind: 'const', value: false };
  const access = await readConstraintOrNull({ ...args, collection: related });
  // Filtering through a collection the caller may not read would be an oracle: it matches nothing.
  if (!access) return { kind: 'const', value: false };
  const filter = await buildFilter({ ...args, collection: related, nodes: [relation.where, access.constraint], deleted: false });
  // An access rule's own condition is the host's cost to choose: a client could not narrow it.
  const most = relation.trusted ? undefined : args.runtime.config.query.maxRelationIds;
  const query = related.model.find(filter, { _id: 1 });
  if (most !== undefined) query.limit(most + 1);
  const rows = await query.lean<Array<{ _id: Types.ObjectId }>>();
  if (most !== undefined && rows.length > most) rejectTooManyRelationIds(relation, most);
  return { kind: 'ids', field: relation.field, ids: rows.map((r) => r._id) };
}
