// Component names for collections and globals: `posts` -> `Posts` (+ `PostsCreate`, `PostsUpdate`,
// `PostsList`). Slugs that fold to the same name (`blog-posts`, `blog_posts`) get a numbered suffix.
import type { CollectionDescriptor } from '../schema/descriptors';

/** The component names of one collection or global. */
export interface ComponentNames {
  record: string;
  create: string;
  update: string;
  list: string;
}

/** Shared components every document has; no collection may take their names. */
export const SHARED_COMPONENTS = ['Problem', 'ProblemDetail', 'ObjectId'] as const;

function pascalCase(slug: string): string {
  return slug
    .split(/[-_]+/)
    .filter(Boolean)
    .map((part) => part[0].toUpperCase() + part.slice(1))
    .join('');
}

function namesOf(base: string): ComponentNames {
  return { record: base, create: `${base}Create`, update: `${base}Update`, list: `${base}List` };
}

/** Names for every collection, then every global (prefixed `Global`), unique across the document. */
export function allocateComponentNames(
  collections: readonly CollectionDescriptor[],
  globals: readonly CollectionDescriptor[],
): { collections: Map<string, ComponentNames>; globals: Map<string, ComponentNames> } {
  const taken = new Set<string>(SHARED_COMPONENTS);
  const allocate = (base: string): ComponentNames => {
    for (let n = 1; ; n++) {
      const names = namesOf(n === 1 ? base : `${base}${n}`);
      const all = Object.values(names);
      if (all.some((name) => taken.has(name))) continue;
      for (const name of all) taken.add(name);
      return names;
    }
  };
  return {
    collections: new Map(collections.map((c) => [c.slug, allocate(pascalCase(c.slug))])),
    globals: new Map(globals.map((g) => [g.slug, allocate(`Global${pascalCase(g.slug)}`)])),
  };
}
