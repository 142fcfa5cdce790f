// `depth` (Form A) and `include` (Forms B/C) -> one PopulateTree: which relationship/upload fields to
// populate, level by level. Hidden relations are never populated; depth is bounded by options.maxDepth.
import type { CollectionDescriptor, FieldDescriptor, SchemaRegistry } from '../schema/descriptors';
import { findField } from './find-field';
import { readNameList } from './read-list';
import { readSingleParam, toInteger } from './read-param';
import { describeValue, rejectQuery } from './reject';
import type { PopulateTree, QueryOptions } from './types';

/** The relation field `name` of `collection` as clients see it (visible, with a relationTo), if any. */
function findRelation(collection: CollectionDescriptor, name: string): FieldDescriptor | undefined {
  const field = findField(collection, name);
  return field?.relationTo !== undefined ? field : undefined;
}

/** `depth`: an integer from 0 (default) to maxDepth. */
export function parseDepth(raw: Record<string, unknown>, maxDepth: number): number {
  const value = readSingleParam(raw, 'depth', 'invalid_depth');
  if (value === undefined) return 0;
  const depth = toInteger(value);
  if (depth === undefined || depth > maxDepth) {
    rejectQuery('depth', `${describeValue(value)} is not an integer from 0 to ${maxDepth}`, 'invalid_depth');
  }
  return depth;
}

/**
 * Every visible relationship/upload field of `collection`, recursively through the registry, `depth`
 * levels deep. A relation whose target is not in the registry is populated but not expanded further.
 */
export function expandDepth(collection: CollectionDescriptor, registry: SchemaRegistry, depth: number): PopulateTree {
  const tree: PopulateTree = {};
  if (depth <= 0) return tree;
  for (const field of Object.values(collection.fields)) {
    if (field.hidden || field.relationTo === undefined) continue;
    const target = registry.get(field.relationTo);
    tree[field.name] = target ? expandDepth(target, registry, depth - 1) : {};
  }
  return tree;
}

/**
 * `include`: relation names, dotted for nested ones (`author.avatar`); every segment must be a visible
 * relation, and a path may not be longer than maxDepth (self-referencing relations would otherwise let
 * one request ask for any number of population rounds).
 */
export function parseInclude(
  input: unknown,
  collection: CollectionDescriptor,
  registry: SchemaRegistry,
  maxDepth: number,
): PopulateTree {
  const tree: PopulateTree = {};
  if (input === undefined) return tree;
  for (const path of readNameList(input, 'include', 'invalid_include')) {
    if (path.split('.').length > maxDepth) {
      rejectQuery('include', `"${path}" is deeper than the maximum depth of ${maxDepth}`, 'invalid_include');
    }
    let level = tree;
    let current: CollectionDescriptor | undefined = collection;
    for (const segment of path.split('.')) {
      const field = current ? findRelation(current, segment) : undefined;
      if (!field) rejectQuery('include', `"${path}": "${segment}" is not a relation`, 'invalid_include');
      level[segment] ??= {};
      level = level[segment];
      current = registry.get(field.relationTo ?? '');
    }
  }
  return tree;
}

/** Deep union of two populate trees. */
export function mergePopulate(a: PopulateTree, b: PopulateTree): PopulateTree {
  const merged: PopulateTree = { ...a };
  for (const [name, subtree] of Object.entries(b)) {
    merged[name] = Object.hasOwn(merged, name) ? mergePopulate(merged[name], subtree) : subtree;
  }
  return merged;
}

/** The PopulateTree of a list request: the `depth` expansion merged with the `include` paths. */
export function parsePopulate(
  raw: Record<string, unknown>,
  collection: CollectionDescriptor,
  registry: SchemaRegistry,
  options: Pick<QueryOptions, 'maxDepth'>,
): PopulateTree {
  const depthTree = expandDepth(collection, registry, parseDepth(raw, options.maxDepth));
  return mergePopulate(depthTree, parseInclude(raw.include, collection, registry, options.maxDepth));
}
