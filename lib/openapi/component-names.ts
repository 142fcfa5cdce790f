// Component names for collections and globals: `posts` -> `Posts` (+ `PostsCreate`, `PostsUpdate`,
// `PostsList` and its envelopes, `PostsBatch`; with `versions`, `PostsVersion` and its kin, and with drafts
// `PostsDraft` and its list). Slugs that fold to the same name (`blog-posts`,
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
  /** With `versions` only: the history's and the working copy's components. */
  workflow?: WorkflowNames;
};

/** The components of a versioned collection or global (`drafts` ones only with drafts). */
export type WorkflowNames = {
  /** `{ version, op, createdAt, actor, changedFields }`: one item of the history list. */
  versionSummary: string;
  /** The summary plus `doc`, the record as it was. */
  version: string;
  /** The history list (`<Base>VersionList`), one of its three envelopes, as a record list. */
  versionList: ComponentNames;
  /** `{ from, to, changes }`. */
  versionDiff: string;
  /** The working copy with `_status`, and the list of working copies. */
  drafts?: { draft: string; draftList: ComponentNames };
};

/** The names a list of `item` components takes (its three envelopes): the record list's, under another base. */
function listNamesOf(base: string, item: string): ComponentNames {
  return { ...namesOf(base), record: item };
}

function workflowNamesOf(base: string, drafts: boolean): WorkflowNames {
  return {
    versionSummary: `${base}VersionSummary`,
    version: `${base}Version`,
    versionList: listNamesOf(`${base}Version`, `${base}VersionSummary`),
    versionDiff: `${base}VersionDiff`,
    ...(drafts && { drafts: { draft: `${base}Draft`, draftList: listNamesOf(`${base}Draft`, `${base}Draft`) } }),
  };
}

/** Every component name of one collection or global: the record's, its list's, and its history's. */
function allNames(names: ComponentNames): string[] {
  const { workflow, ...own } = names;
  if (!workflow) return Object.values(own);
  const listed = (list: ComponentNames) => [list.list, list.page, list.docsPage, list.cursorPage];
  return [
    ...Object.values(own),
    workflow.versionSummary,
    workflow.version,
    workflow.versionDiff,
    ...listed(workflow.versionList),
    ...(workflow.drafts ? [workflow.drafts.draft, ...listed(workflow.drafts.draftList)] : []),
  ];
}

function namesOf(base: string, versions?: CollectionDescriptor['versions']): ComponentNames {
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
    ...(versions && { workflow: workflowNamesOf(base, versions.drafts) }),
  };
}

/** Names for every collection, then every global (prefixed `Global`), unique across the document and `reserved`. */
export function allocateComponentNames(
  collections: readonly CollectionDescriptor[],
  globals: readonly CollectionDescriptor[],
  reserved: Iterable<string>,
): { collections: Map<string, ComponentNames>; globals: Map<string, ComponentNames> } {
  const taken = new Set<string>(reserved);
  const allocate = (base: string, versions: CollectionDescriptor['versions']): ComponentNames => {
    for (let n = 1; ; n++) {
      const names = namesOf(n === 1 ? base : `${base}${n}`, versions);
      const all = allNames(names);
      if (all.some((name) => taken.has(name))) continue;
      for (const name of all) taken.add(name);
      return names;
    }
  };
  return {
    collections: new Map(collections.map((c) => [c.slug, allocate(pascalCase(c.slug), c.versions)])),
    globals: new Map(globals.map((g) => [g.slug, allocate(`Global${pascalCase(g.slug)}`, g.versions)])),
  };
}
