// Turns a resolved WhereNode tree into a Mongo filter. Keys come only from validated field paths and
// a fixed set of operators; values were cast by the parser (RegExps built from escaped text).
import { storagePath } from '../schema/descriptors';
import type { Operator, WhereNode } from './types';

type FieldNode = Extract<WhereNode, { kind: 'field' }>;
type Filter = Record<string, unknown>;

/** A filter no document satisfies (every document has an `_id`). A fresh object each call. */
export function matchNothing(): Filter {
  return { _id: { $exists: false } };
}

// Array fields: a range must hold for one element, not be satisfied by two different ones.
function between(node: FieldNode): unknown {
  const [start, end] = node.value as [unknown, unknown];
  const range = { $gte: start, $lte: end };
  return node.field.isArray ? { $elemMatch: range } : range;
}

const CONDITIONS: Record<Operator, (node: FieldNode) => unknown> = {
  eq: (node) => ({ $eq: node.value }),
  // `$ne: null` is "exists and is not null", which is what `neq null` means.
  neq: (node) => ({ $ne: node.value }),
  gt: (node) => ({ $gt: node.value }),
  gte: (node) => ({ $gte: node.value }),
  lt: (node) => ({ $lt: node.value }),
  lte: (node) => ({ $lte: node.value }),
  in: (node) => ({ $in: node.value }),
  nin: (node) => ({ $nin: node.value }),
  // A RegExp as the field's value, not `{ $regex: RegExp }`: servers such as mongo-java-server (CI)
  // cannot take a BSON regex inside `$regex` (MongoDB can); a bare regex means the same everywhere.
  like: (node) => node.value,
  nlike: (node) => ({ $not: node.value }),
  exists: (node) => (node.value ? { $ne: null } : { $eq: null }),
  // A RegExp (text field) matches a substring; a scalar (array field) matches an element.
  contains: (node) => (node.value instanceof RegExp ? node.value : { $eq: node.value }),
  notContains: (node) => (node.value instanceof RegExp ? { $not: node.value } : { $ne: node.value }),
  any: (node) => ({ $in: node.value }),
  all: (node) => ({ $all: node.value }),
  between,
};

function compound(operator: '$and' | '$or', nodes: readonly WhereNode[]): Filter {
  const parts = nodes.map(toMongoFilter);
  // An empty filter inside $and adds nothing; inside $or it already matches everything.
  const useful = operator === '$and' ? parts.filter((part) => Object.keys(part).length > 0) : parts;
  if (operator === '$or' && useful.some((part) => Object.keys(part).length === 0)) return {};
  if (useful.length === 0) return operator === '$and' ? {} : matchNothing();
  return useful.length === 1 ? useful[0] : { [operator]: useful };
}

/**
 * The Mongo filter for `node` (`{}` when undefined). `relation` nodes must have been resolved into `ids`
 * nodes first (mapRelationNodes): meeting one is a programming error and throws.
 */
export function toMongoFilter(node: WhereNode | undefined): Filter {
  if (node === undefined) return {};
  switch (node.kind) {
    case 'and':
      return compound('$and', node.nodes);
    case 'or':
      return compound('$or', node.nodes);
    case 'const':
      return node.value ? {} : matchNothing();
    case 'ids':
      // One id as plain equality: on _id, MongoDB answers that from the id index without planning.
      return { [storagePath(node.field.name)]: node.ids.length === 1 ? node.ids[0] : { $in: node.ids } };
    case 'field':
      return { [storagePath(node.field.name)]: CONDITIONS[node.op](node) };
    case 'relation':
      throw new Error(
        `toMongoFilter: the condition on "${node.field.name}" through "${node.relationTo}" was not resolved (call mapRelationNodes first)`,
      );
  }
}
