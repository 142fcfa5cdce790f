// What one caller's document is built from (`docs.perCaller`): the whole API's source narrowed to the caller's
// schema (operations/describe-schema.ts) and field view. A route whose access rule refuses the caller outright
// (a `false` right, or a collection it may do nothing with) is left out, and so is a route that needs a signed-in
// caller when it is anonymous or whose own `reach` refuses it (an API key on the key routes, the audit log's rule); collections and globals it may do nothing with are left out with their schemas,
// and the fields its read rules deny are hidden, as every answer it gets hides them; the fields it may not set
// (readOnlyOnCreate / readOnlyOnUpdate in its schema) are left out of its write bodies. Pure: the feature caches
// the documents by `reachKey`.
import type { OpenAPIObject } from 'openapi3-ts/oas31';
import type { CallerSchema, Permission, SchemaCollection, SchemaField, SchemaGlobal } from '../config/caller-schema';
import type { RouteDef } from '../http/route-table';
import type { FieldView } from '../operations/field-view';
import type { Runtime } from '../operations/runtime';
import type { CollectionDescriptor, SchemaRegistry } from '../schema/descriptors';
import type { DocumentSource } from './build-document';

/** What a caller may reach: its schema, its field view, and whether it is signed in. */
export interface CallerReach {
  schema: CallerSchema;
  view: FieldView;
  signedIn: boolean;
  /** The operations whose own `reach` refuses the caller (route-table.ts): the key routes for an API key, ... */
  refused?: ReadonlySet<string>;
}

/**
 * The same for every caller who may reach the same: its rights on each collection and global and the fields
 * it may not read (the view's key), so callers alike share one document.
 */
export function reachKey({ schema, view, signedIn, refused }: CallerReach): string {
  const own = (c: SchemaCollection | SchemaGlobal) => [c.slug, c.access, deniedFields(c.fields, 'create'), deniedFields(c.fields, 'update')];
  return JSON.stringify([signedIn, schema.collections.map(own), schema.globals.map(own), view.key, [...(refused ?? [])].sort()]);
}

/** The fields the caller may not set on a create or an update, as its schema says. */
function deniedFields(fields: readonly SchemaField[], mode: 'create' | 'update'): string[] {
  return fields.filter((field) => (mode === 'create' ? field.readOnlyOnCreate : field.readOnlyOnUpdate)).map((field) => field.name);
}

/** What the caller may not set, by collection and global: what its write bodies leave out. */
function writeDeniedOf(schema: CallerSchema): NonNullable<DocumentSource['writeDenied']> {
  const collections = new Map(schema.collections.map((c) => [c.slug, c.fields]));
  const globals = new Map(schema.globals.map((g) => [g.slug, g.fields]));
  return (descriptor, mode) => deniedFields((descriptor.isGlobal ? globals : collections).get(descriptor.slug) ?? [], mode);
}

/** The caller's rights by `slug` and `global:slug`. */
function rightsOf(schema: CallerSchema): Map<string, Readonly<Record<string, Permission | undefined>>> {
  const rights = new Map<string, Readonly<Record<string, Permission | undefined>>>();
  for (const collection of schema.collections) rights.set(collection.slug, { ...collection.access });
  for (const global of schema.globals) rights.set(`global:${global.slug}`, { ...global.access });
  return rights;
}

/** Whether the caller may use the route at all: only a rule's `false` (or no right anywhere there) refuses outright. */
function reachable(route: RouteDef, rights: ReturnType<typeof rightsOf>, signedIn: boolean): boolean {
  if (route.auth === 'required' && !signedIn) return false;
  if (!route.rule) return true;
  const access = rights.get(`${route.rule.global ? 'global:' : ''}${route.rule.slug}`);
  const ops = typeof route.rule.op === 'string' ? [route.rule.op] : route.rule.op;
  return access !== undefined && ops.every((op) => access[op] !== false);
}

/** The document source of what this caller may reach. */
export function callerSource(runtime: Runtime, source: DocumentSource, reach: CallerReach): DocumentSource {
  const { schema, view } = reach;
  const rights = rightsOf(schema);
  // The caller's view of each collection it may use (read-denied fields hidden): the record schemas, the
  // query parameters' examples and the relations to collections it may not use (an id only) follow from it.
  const registry: SchemaRegistry = new Map(schema.collections.flatMap((c) => {
    const descriptor = view.registry.get(c.slug);
    return descriptor ? [[c.slug, descriptor] as const] : [];
  }));
  const globals: CollectionDescriptor[] = schema.globals.flatMap((g) => {
    const global = runtime.globals.get(g.slug);
    return global ? [view.of(global).descriptor] : [];
  });
  const ownAuth = [...source.registry.values()].some((c) => c.isAuth);
  const routes = source.routes.filter((route) => reachable(route, rights, reach.signedIn) && !reach.refused?.has(route.operationId));
  return { ...source, registry, globals, ownAuth, routes, writeDenied: writeDeniedOf(schema) };
}

const SCHEMA_REF = '#/components/schemas/';

/** The component names `value` refers to, anywhere inside it. */
function refsIn(value: unknown, into: Set<string>): Set<string> {
  if (Array.isArray(value)) for (const item of value) refsIn(item, into);
  else if (value && typeof value === 'object') {
    for (const [key, part] of Object.entries(value)) {
      if (key === '$ref' && typeof part === 'string' && part.startsWith(SCHEMA_REF)) into.add(part.slice(SCHEMA_REF.length));
      else refsIn(part, into);
    }
  }
  return into;
}

/**
 * Drops the schemas no operation of the document uses, directly or through another schema: a caller who may
 * not create has no use for a collection's create body (and an unused component is a lint warning).
 */
export function withoutUnusedSchemas(document: OpenAPIObject): OpenAPIObject {
  const schemas = document.components?.schemas;
  if (!schemas) return document;
  const used = refsIn({ ...document, components: { ...document.components, schemas: {} } }, new Set());
  const pending = [...used];
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    for (const next of refsIn(schemas[name], new Set())) {
      if (!used.has(next)) {
        used.add(next);
        pending.push(next);
      }
    }
  }
  const kept = Object.fromEntries(Object.entries(schemas).filter(([name]) => used.has(name)));
  return { ...document, components: { ...document.components, schemas: kept } };
}
