// What the collection tools share: the `collection` argument checked against the caller's schema (a slug it
// cannot see is refused, naming what it may use), the operation's args as REST builds them (origin `mcp`
// for the audit log), and a query read as REST reads it: in the caller's field view when field read rules
// exist (a field it may not read is unknown to it), else in the collection's own descriptor.
import type { SchemaCollection } from '../config/caller-schema';
import { QueryError } from '../errors';
import { operationView } from '../operations/operation-view';
import type { CollectionRuntime, OperationArgs } from '../operations/runtime';
import type { CollectionDescriptor, SchemaRegistry } from '../schema/descriptors';
import type { ToolContext } from './tool';

/** The collection the caller named, as it sees it and as the runtime runs it. */
export interface ToolCollection {
  readonly runtime: CollectionRuntime;
  readonly schema: SchemaCollection;
}

/** The collections this caller may `right` on (every collection it sees without `right`). */
export function usableCollections(context: ToolContext, right?: keyof SchemaCollection['access']): SchemaCollection[] {
  return context.schema.collections.filter((c) => right === undefined || (c.access[right] ?? false) !== false);
}

/** A right in words, for messages: what a caller may do on a collection. */
const RIGHT_WORDS: Record<keyof SchemaCollection['access'], string> = {
  read: 'read',
  create: 'create records in',
  update: 'update',
  delete: 'delete records of',
  publish: 'publish',
  readDrafts: 'read drafts of',
  readVersions: 'read versions of',
};

/** The refusal of a `collection` argument that names nothing the caller may use so: what it is not, and what it may use. */
export function unknownCollection(slug: string, isNot: string, usable: readonly string[]): QueryError {
  const names = usable.join(', ');
  return new QueryError(`Unknown collection "${slug}".`, [{ field: 'collection', message: `${isNot}${names ? ` (you may use: ${names})` : ''}`, code: 'unknown_collection' }]);
}

/**
 * The refusal of a draft tool, or `draft: true`, on a collection the caller sees but that keeps no working
 * copies: a 400 `drafts_off` naming `argument` (the collection, or the `draft` flag) and the collections with
 * drafts it may use instead.
 */
export function draftsOffRefusal(slug: string, argument: string, usable: ReadonlyArray<Pick<SchemaCollection, 'slug' | 'versions'>>): QueryError {
  const names = usable.filter((c) => c.versions?.drafts === true).map((c) => c.slug).join(', ');
  const message = `"${slug}" has no drafts${names ? ` (those with drafts you may use: ${names})` : ''}`;
  return new QueryError(`"${slug}" has no drafts: it keeps no working copies.`, [{ field: argument, message, code: 'drafts_off' }], { code: 'drafts_off', title: 'Drafts off' });
}

/** The collection `slug` names, if the caller may `right` on it; else a refusal naming `collection` (or `draft`, on a collection without drafts). */
export function collectionArgument(context: ToolContext, slug: string, right: keyof SchemaCollection['access']): ToolCollection {
  const usable = usableCollections(context, right);
  const schema = usable.find((c) => c.slug === slug);
  const collection = schema && context.runtime.collections.get(slug);
  if (!schema || !collection) {
    const seen = usableCollections(context).find((c) => c.slug === slug);
    if (right === 'readDrafts' && seen && seen.versions?.drafts !== true) throw draftsOffRefusal(slug, 'draft', usable);
    throw unknownCollection(slug, `is not a collection you may ${RIGHT_WORDS[right]}`, usable.map((c) => c.slug));
  }
  return { runtime: collection, schema };
}

/** The args of an operation on `collection` for this caller, as REST passes them, marked as coming from MCP. */
export function operationArgs(context: ToolContext, collection: CollectionRuntime): OperationArgs {
  return { runtime: context.runtime, collection, req: context.req, user: context.user, origin: 'mcp' };
}

/** A query parsed as REST parses it for this caller: in its field view when field read rules exist. */
export async function queryFor<Q>(context: ToolContext, collection: CollectionRuntime, parse: (descriptor: CollectionDescriptor, registry: SchemaRegistry) => Q): Promise<Q> {
  const { runtime } = context;
  if (runtime.fieldReadRules.length === 0) return parse(collection.descriptor, runtime.registry);
  const view = await operationView(operationArgs(context, collection), 'read');
  return parse(view.of(collection).descriptor, view.registry);
}
