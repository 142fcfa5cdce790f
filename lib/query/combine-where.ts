// Builds and/or nodes in a normal form: nested compounds of the same kind flattened, constants folded,
// single children unwrapped. Parsers, the list query and the access layer all combine through here.
import type { WhereNode } from './types';

const TRUE: WhereNode = Object.freeze({ kind: 'const', value: true });
const FALSE: WhereNode = Object.freeze({ kind: 'const', value: false });

/**
 * `and`/`or` of `nodes`, simplified. An empty `and` is true and an empty `or` is false (so an access
 * constraint `{ or: [] }` allows nothing rather than everything).
 */
export function combineWhere(kind: 'and' | 'or', nodes: readonly WhereNode[]): WhereNode {
  // The constant that decides the whole compound (false for and, true for or), and the neutral one.
  const absorbing = kind === 'or';
  const children: WhereNode[] = [];
  for (const node of nodes) {
    if (node.kind === 'const') {
      if (node.value === absorbing) return absorbing ? TRUE : FALSE;
      continue;
    }
    if (node.kind === kind) children.push(...node.nodes);
    else children.push(node);
  }
  if (children.length === 0) return absorbing ? FALSE : TRUE;
  if (children.length === 1) return children[0];
  return { kind, nodes: children };
}

/**
 * ANDs optional conditions (a where, a filter, a search, an access constraint); undefined when nothing
 * constrains the result, as ListQuery.where expects.
 */
export function combineAnd(...nodes: Array<WhereNode | undefined>): WhereNode | undefined {
  const combined = combineWhere('and', nodes.filter((node): node is WhereNode => node !== undefined));
  return combined.kind === 'const' && combined.value ? undefined : combined;
}
