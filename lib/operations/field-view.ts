// What one caller may see of the schema: every collection and global with the fields its field `read`
// rules deny marked hidden. The query layer already treats a hidden field as one that does not exist
// (`where`, `filter`, `sort`, `search`, `fields`, `include` and dotted relation paths naming it are a 400
// like an unknown field) and the serializer leaves it out, so a view is all reads need: no oracle.
//
// Decided once per request or local API call (the rules see only the caller); views are built once per
// distinct set of denied fields and shared by every caller with that set.
import type { Request } from 'express';
import type { AuthUser } from '../config/types';
import type { CollectionDescriptor, FieldDescriptor, SchemaRegistry } from '../schema/descriptors';
import { createRecordSerializer } from '../schema/to-record';
import { type CallerMemo, type RequestState, callerMemo, rememberForCaller } from './request-state';
import { callHook, fieldRuleLabel } from './hooks';
import type { CollectionRuntime, FieldReadRule, FieldView, Runtime, ViewedCollection } from './runtime';

// The view types live with the runtime, which holds the views: declared here they would tie the two
// modules into an import circle.
export type { FieldReadRule, FieldView, ViewedCollection };

/** Most distinct views kept; past it a view is built per request (rules producing endless variety are rare). */
const MAX_VIEWS = 256;

const NOTHING: ReadonlySet<string> = Object.freeze(new Set<string>());

/** The read rules of every collection's and global's fields, found once when the router is built. */
export function fieldReadRules(collections: Iterable<CollectionDescriptor>): FieldReadRule[] {
  const rules: FieldReadRule[] = [];
  for (const descriptor of collections) {
    for (const field of Object.values(descriptor.fields)) {
      const rule = field.config.access?.read;
      if (rule) rules.push({ slug: descriptor.slug, field: field.name, isGlobal: descriptor.isGlobal, rule });
    }
  }
  return rules;
}

/** The view of a caller who reads every field. */
export function fullView(registry: SchemaRegistry): FieldView {
  return {
    key: '',
    registry,
    of: (collection) => ({ descriptor: collection.descriptor, serialize: collection.serialize, unreadable: NOTHING }),
  };
}

/** A descriptor with `unreadable` fields hidden, out of the search fields and the declared sorts. */
function hideFields(descriptor: CollectionDescriptor, unreadable: ReadonlySet<string>): CollectionDescriptor {
  const fields: Record<string, FieldDescriptor> = {};
  for (const [name, field] of Object.entries(descriptor.fields)) fields[name] = unreadable.has(name) ? Object.freeze({ ...field, hidden: true }) : field;
  return Object.freeze({
    ...descriptor,
    fields: Object.freeze(fields),
    searchFields: Object.freeze(descriptor.searchFields.filter((name) => !unreadable.has(name))),
    // A sort refused with the list of allowed ones must not list a field the caller cannot see.
    sortable: descriptor.sortable && Object.freeze(descriptor.sortable.filter((name) => !unreadable.has(name))),
  });
}

/** Builds the view in which `denied` (slug -> field names) are unreadable. */
function buildView(runtime: Runtime, key: string, denied: ReadonlyMap<string, ReadonlySet<string>>, globals: ReadonlyMap<string, ReadonlySet<string>>): FieldView {
  const registry = new Map(runtime.registry);
  const viewed = new Map<CollectionDescriptor, ViewedCollection>();
  const hide = (base: CollectionDescriptor, unreadable: ReadonlySet<string>): CollectionDescriptor => {
    const descriptor = hideFields(base, unreadable);
    viewed.set(base, { descriptor, serialize: createRecordSerializer(descriptor), unreadable });
    return descriptor;
  };
  const add = (owner: CollectionRuntime, unreadable: ReadonlySet<string>) => {
    const descriptor = hide(owner.descriptor, unreadable);
    if (!owner.descriptor.isGlobal) registry.set(owner.descriptor.slug, descriptor);
    // A working copy shows the caller what its published record would: the same fields are unreadable.
    if (owner.drafts) hide(owner.drafts.descriptor, unreadable);
  };
  // eslint-disable-next-line @typescript-eslint/no-non-null-assertion -- `denied` holds slugs of the registry only
  for (const [slug, unreadable] of denied) add(runtime.collections.get(slug)!, unreadable);
  // eslint-disable-next-line @typescript-eslint/no-non-null-assertion -- `globals` holds slugs of configured globals only
  for (const [slug, unreadable] of globals) add(runtime.globals.get(slug)!, unreadable);
  return {
    key,
    registry,
    of: (collection) => viewed.get(collection.descriptor) ?? { descriptor: collection.descriptor, serialize: collection.serialize, unreadable: NOTHING },
  };
}

/** Asks every field read rule for this caller; true only allows. */
async function deniedFields(runtime: Runtime, user: AuthUser | null, req: Request | undefined): Promise<FieldReadRule[]> {
  // A rule that throws fails the request as a hook does: a ContentError is the answer, anything else a 500 naming the rule.
  const ask = ({ slug, field, isGlobal, rule }: FieldReadRule) => callHook(fieldRuleLabel({ slug, isGlobal }, field, 'read'), rule, { user, req });
  const answers = await Promise.all(runtime.fieldReadRules.map(ask));
  return runtime.fieldReadRules.filter((_, index) => answers[index] !== true);
}

/** The view of a caller whose read rules denied `denied`, from the runtime's views or built now. */
function viewOf(runtime: Runtime, denied: readonly FieldReadRule[]): FieldView {
  if (denied.length === 0) return runtime.views.full;
  const key = denied.map((d) => `${d.isGlobal ? 'global:' : ''}${d.slug}.${d.field}`).join(',');
  const known = runtime.views.byKey.get(key);
  if (known) return known;
  const collections = new Map<string, Set<string>>();
  const globals = new Map<string, Set<string>>();
  for (const { slug, field, isGlobal } of denied) {
    const into = isGlobal ? globals : collections;
    let set = into.get(slug);
    if (!set) into.set(slug, (set = new Set()));
    set.add(field);
  }
  const view = buildView(runtime, key, collections, globals);
  if (runtime.views.byKey.size < MAX_VIEWS) runtime.views.byKey.set(key, view);
  return view;
}

/** Views decided for requests, so every operation of one request (nested calls too) asks the rules once. */
const decided: CallerMemo<Promise<FieldView>> = callerMemo('field view');

/**
 * The caller's view: every field when access is overridden or no field has a read rule; else the rules'
 * answer for this caller, asked once per request.
 */
export function callerView(args: { runtime: Runtime; user: AuthUser | null; req?: Request; state?: RequestState; overrideAccess?: boolean }): Promise<FieldView> {
  const { runtime, user, req } = args;
  if (args.overrideAccess || runtime.fieldReadRules.length === 0) return Promise.resolve(runtime.views.full);
  return rememberForCaller(decided, args, () => deniedFields(runtime, user, req).then((denied) => viewOf(runtime, denied)));
}
