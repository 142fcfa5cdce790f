// Component names for collections and globals: `posts` -> `Posts` (+ `PostsCreate`, `PostsUpdate`,
// `PostsList` and its envelopes, `PostsBatch`). Slugs that fold to the same name (`blog-posts`,
// `blog_posts`) get a numbered suffix. The shared components' names come in as `reserved`: the schemas
// that use these names import them from here, so this file imports none of them.
import type { CollectionDescriptor } from '../schema/descriptors';
import { pascalCase } from '../schema/type-names';

/**
 * The component names of one collection or global (a global uses only `record` and `update`). A type rather
 * than an interface, so that Object.values sees its values are strings.
 */
export type ComponentNames = {
  record: string;
  create: string;
  update: string;
  /** The list answer: one of the three envelopes below. */
  list: string;
  /** `{ data, meta }`: the page envelope. */
  page: string;
  /** `{ docs, totalDocs, limit, ... }`: the envelope of a request that used `limit`. */
  docsPage: string;
  /** `{ data, meta: { nextCursor, ... } }`: the envelope of a request that used `cursor`. */
  cursorPage: string;
  /** `{ data: [records] }`: the answer to a batch create. */
  batch: string;
  /** `{ data: [inputs] }`: the body of a batch create. */
  createBatch: string;
};

function namesOf(base: string): ComponentNames {
  return {
    record: base,
    create: `${base}Create`,
    update: `${base}Update`,
    list: `${base}List`,
    page: `${base}Page`,
    docsPage: `${base}DocsPage`,
    cursorPage: `${base}CursorPage`,
    batch: `${base}Batch`,
    createBatch: `${base}CreateBatch`,
  };
}

/** Names for every collection, then every global (prefixed `Global`), unique across the document and `reserved`. */
export function allocateComponentNames(
  collections: readonly CollectionDescriptor[],
  globals: readonly CollectionDescriptor[],
  reserved: Iterable<string>,
): { collections: Map<string, ComponentNames>; globals: Map<string, ComponentNames> } {
  const taken = new Set<string>(reserved);
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
