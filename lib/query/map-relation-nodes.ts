// Replaces the `relation` nodes of a where tree (conditions through a relationship, `author.name`)
// with what the operations layer resolves them to, usually an `ids` node; the rest of the tree is kept.
import { combineWhere } from './combine-where';
import type { WhereNode } from './types';

/** A relation node: the condition `where` on the collection `relationTo` that `field` points at. */
export type RelationNode = Extract<WhereNode, { kind: 'relation' }>;

/** Whether `node` holds a relation node anywhere (which mapRelationNodes would have to resolve). */
export function hasRelationNodes(node: WhereNode): boolean {
  if (node.kind === 'relation') return true;
  return (node.kind === 'and' || node.kind === 'or') && node.nodes.some(hasRelationNodes);
}

/**
 * Walks `node` and replaces every relation node with `await resolve(relationNode)`; compounds are
 * rebuilt through combineWhere, so a resolver returning a constant folds away. Siblings resolve
 * concurrently. The resolver sees the inner where as parsed: a nested path (`author.company.name`)
 * arrives as a relation node whose where is itself a relation node, for the resolver to map in turn.
 */
export async function mapRelationNodes(
  node: WhereNode,
  resolve: (relation: RelationNode) => Promise<WhereNode>,
): Promise<WhereNode> {
  switch (node.kind) {
    case 'relation':
      return resolve(node);
    case 'and':
    case 'or': {
      const nodes = await Promise.all(node.nodes.map((child) => mapRelationNodes(child, resolve)));
      return combineWhere(node.kind, nodes);
    }
    default:
      return node;
  }
}
