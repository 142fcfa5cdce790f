// Cost limits on relation conditions (dotted paths through relationships, `author.company.name`): each
// hop is one query on the related collection, whose matching ids travel back in the filter. Counted here, on the parsed tree.
import { rejectTooComplex } from './reject';
import type { QueryOptions, WhereNode } from './types';

type RelationNode = Extract<WhereNode, { kind: 'relation' }>;

/** One relation condition of a where tree: its outermost node and the hops of its path. */
export interface RelationPath {
  node: RelationNode;
  hops: number;
}

/** The limits a client's relation conditions must keep (QueryOptions, from `core.api`). */
export type RelationLimits = Pick<QueryOptions, 'maxRelationConditions' | 'maxRelationDepth' | 'maxRelationIds'>;

/**
 * The relation conditions of `node` in tree order: every relation node that is not itself the inner
 * condition of another, with the most hops below it (`author.name` 1, `author.company.name` 2).
 */
export function listRelationPaths(node: WhereNode | undefined): RelationPath[] {
  if (node === undefined) return [];
  switch (node.kind) {
    case 'relation': {
      const inner = listRelationPaths(node.where);
      return [{ node, hops: 1 + Math.max(0, ...inner.map((path) => path.hops)) }];
    }
    case 'and':
    case 'or':
      return node.nodes.flatMap(listRelationPaths);
    default:
      return [];
  }
}

/**
 * Throws a 400 `query_too_complex` when the client's conditions (`[parameter, tree]` pairs, all of one
 * request) hold more than `maxRelationConditions` relation conditions together, naming the parameter in
 * which the count passes the limit; or a path of more than `maxRelationDepth` hops, naming that path.
 */
export function assertRelationLimits(
  conditions: ReadonlyArray<readonly [param: string, node: WhereNode | undefined]>,
  limits: RelationLimits,
): void {
  const { maxRelationConditions: most, maxRelationDepth: deepest } = limits;
  const perParam = conditions.map(([param, node]) => ({ param, paths: listRelationPaths(node) }));
  const total = perParam.reduce((sum, { paths }) => sum + paths.length, 0);
  if (total > most) {
    let seen = 0;
    const over = perParam.find(({ paths }) => (seen += paths.length) > most);
    rejectTooComplex(
      over?.param ?? 'where',
      `${total} relation conditions (dotted paths such as author.name); at most ${most} relation conditions per request (core.api.maxRelationConditions)`,
    );
  }
  for (const { paths } of perParam) {
    const tooDeep = paths.find((path) => path.hops > deepest);
    if (tooDeep) {
      rejectTooComplex(
        tooDeep.node.path,
        `a relation path of ${tooDeep.hops} hops; at most ${deepest} hop${deepest === 1 ? '' : 's'} per path (core.api.maxRelationDepth)`,
      );
    }
  }
}

/**
 * Throws the 400 `query_too_complex` for a relation condition that matched more than `most` records of
 * the related collection: the filter would carry all their ids. Never truncated: the client narrows it.
 */
export function rejectTooManyRelationIds(relation: RelationNode, most: number): never {
  return rejectTooComplex(
    relation.path,
    `matches more than ${most} records of "${relation.relationTo}"; one relation condition may match at most ${most} (core.api.maxRelationIds): narrow the filter`,
  );
}
