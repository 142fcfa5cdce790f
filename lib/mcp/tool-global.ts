// What `get` and `update` act on: a collection's record (`collection` and `id`) or a global (`global`),
// exactly one of the two, each mistake a refusal naming the argument at fault; and the global a call names,
// checked against the caller's schema as collections are (a slug it cannot see is refused, naming the
// globals it may use). Globals run the operations REST's /globals/<slug> routes run.
import type { GlobalPermissions, SchemaGlobal } from '../config/caller-schema';
import { QueryError } from '../errors';
import type { GlobalArgs } from '../operations/globals';
import type { CollectionRuntime } from '../operations/runtime';
import type { ToolContext } from './tool';
import { draftsOffRefusal } from './tool-collection';

/** A record of a collection, or a global. */
export type ToolTarget = { kind: 'record'; collection: string; id: string } | { kind: 'global'; global: string };

function refusal(argument: string, message: string, detail: string): QueryError {
  return new QueryError(detail, [{ field: argument, message, code: 'invalid_argument' }]);
}

/** The target `args` name: `collection` with `id`, or `global` without one. */
export function targetOf(args: { collection?: string; id?: string; global?: string }): ToolTarget {
  const { collection, id, global } = args;
  if (collection !== undefined && global !== undefined) throw refusal('global', 'give either collection (with id) or global, not both', 'Name a collection or a global, not both.');
  if (global !== undefined) {
    if (id !== undefined) throw refusal('id', 'a global has no id: leave it out', 'A global has no id.');
    return { kind: 'global', global };
  }
  if (collection === undefined) throw refusal('collection', 'required: a collection slug (with id), or global instead', 'Name a collection (with id) or a global.');
  if (id === undefined) throw refusal('id', 'required with collection', 'A record is named by its id.');
  return { kind: 'record', collection, id };
}

/** The globals this caller may `right` on (every global it sees without `right`). */
export function usableGlobals(context: ToolContext, right?: keyof GlobalPermissions): SchemaGlobal[] {
  return context.schema.globals.filter((g) => right === undefined || (g.access[right] ?? false) !== false);
}

/**
 * The global `slug` names, if the caller may `right` on it (without `right`: if it sees it; the operation
 * then judges the write, as for collections); else a refusal naming `global` (or `draft`, without drafts).
 */
export function globalArgument(context: ToolContext, slug: string, right?: keyof GlobalPermissions): CollectionRuntime {
  const usable = usableGlobals(context, right);
  const global = usable.some((g) => g.slug === slug) ? context.runtime.globals.get(slug) : undefined;
  if (global) return global;
  const seen = usableGlobals(context).find((g) => g.slug === slug);
  if (right === 'readDrafts' && seen && seen.versions?.drafts !== true) throw draftsOffRefusal(slug, 'draft', usable);
  const names = usable.map((g) => g.slug).join(', ');
  const message = `is not a global you may ${right === 'readDrafts' ? 'read drafts of' : (right ?? 'see')}${names ? ` (you may use: ${names})` : ''}`;
  throw new QueryError(`Unknown global "${slug}".`, [{ field: 'global', message, code: 'unknown_global' }]);
}

/** The args of a global operation for this caller, as REST passes them, marked as coming from MCP. */
export function globalArgs(context: ToolContext, global: CollectionRuntime): GlobalArgs {
  return { runtime: context.runtime, global, req: context.req, user: context.user, origin: 'mcp' };
}
