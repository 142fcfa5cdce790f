// The cache key of a resolved read (the query and the caller's access as resolved), and the related
// collections (and files) its answer reads through (population, relation filters), whose writes must
// invalidate it.
import { queryKey, whereKey } from '../query';
import type { PopulateTree, WhereNode } from '../query/types';
import { readConstraintOrNull } from '../operations/access';
import type { RelationSource, ResolvedRead } from '../operations/runtime';

export interface ReadKey {
  key: string;
  /**
   * Collections (and record sources such as files) other than the read one whose changes can change the
   * answer (and the read one, if reached through a relation).
   */
  related: string[];
}

/** Adds the relationTo of every relation condition in the tree (inner conditions included). */
function collectRelations(node: WhereNode | undefined, into: (slug: string) => void): void {
  if (!node) return;
  switch (node.kind) {
    case 'and':
    case 'or':
      node.nodes.forEach((child) => collectRelations(child, into));
      return;
    case 'relation':
      into(node.relationTo);
      collectRelations(node.where, into);
      return;
    default:
      return;
  }
}

/** Records population reads outside the collections (files), by slug. */
function sourceOf(read: ResolvedRead, slug: string): RelationSource | undefined {
  return read.args.runtime.hooks.relationSources.find((source) => source.slug === slug);
}

/** Adds every collection, and every source of other records (files), a population tree reads, level by level. */
function collectPopulated(read: ResolvedRead, slug: string, tree: PopulateTree, into: (slug: string) => void): void {
  const descriptor = read.args.runtime.registry.get(slug);
  for (const [field, subtree] of Object.entries(tree)) {
    const target = descriptor?.fields[field]?.relationTo;
    if (!target) continue;
    if (read.args.runtime.collections.has(target)) {
      into(target);
      collectPopulated(read, target, subtree, into);
    } else if (sourceOf(read, target)) {
      // One level: a source's records populate nothing further.
      into(target);
    }
  }
}

/**
 * Computes the key: queryKey, the read constraint, the soft-delete scope, and the read rule's answer for
 * each related collection and populated source of files (evaluated for this caller, as the read itself
 * will). Keying on resolved constraints rather than on the user lets callers with the same view (all
 * anonymous readers of a public collection) share entries, while a per-user constraint keeps users apart.
 */
export async function readKey(read: ResolvedRead): Promise<ReadKey> {
  const { args, query } = read;
  const slug = args.collection.descriptor.slug;
  const seen = new Set<string>();
  const pending: string[] = [];
  const visit = (related: string): void => {
    if (seen.has(related)) return;
    seen.add(related);
    pending.push(related);
  };
  collectPopulated(read, slug, query.populate, visit);
  if ('sort' in query) collectRelations(query.where, visit);
  collectRelations(read.constraint, visit);
  collectRelations(read.deleted.node, visit);

  const access: string[] = [];
  for (let relatedSlug = pending.pop(); relatedSlug !== undefined; relatedSlug = pending.pop()) {
    // A source's records (files) have a read rule of their own, evaluated like a collection's.
    const related = args.runtime.collections.get(relatedSlug) ?? sourceOf(read, relatedSlug);
    if (!related) continue;
    const result = await readConstraintOrNull({ ...args, collection: related });
    access.push(`${JSON.stringify(relatedSlug)}:${result ? whereKey(result.constraint) : 'denied'}`);
    collectRelations(result?.constraint, visit);
  }
  const key = [
    queryKey(query, read.id),
    `access=${whereKey(read.constraint)}`,
    `deleted=${read.deleted.deleted}:${whereKey(read.deleted.node)}`,
    `related=${access.sort().join(',')}`,
    `view=${read.view}`,
  ].join('|');
  return { key, related: [...seen] };
}
