// The args every operation takes (who acts, on what, with which access), the caller's field view, and a
// read as features see it once its access is resolved. The router's live state is runtime.ts.
import type { Request } from 'express';
import type { FieldAccessFn, HookContext } from '../config/hooks';
import type { AuthUser } from '../config/types';
import type { ListQuery, RecordQuery, WhereNode } from '../query/types';
import type { SchemaRegistry, CollectionDescriptor } from '../schema/descriptors';
import type { RecordSerializer } from '../schema/to-record';
import type { CollectionRuntime, Runtime } from './runtime';

/** One collection (or global) as a caller sees it (field-view.ts builds them). */
export interface ViewedCollection {
  /** Fields the caller may not read are hidden here. */
  readonly descriptor: CollectionDescriptor;
  readonly serialize: RecordSerializer;
  /** The fields the caller may not read (empty when it reads them all). */
  readonly unreadable: ReadonlySet<string>;
}

/** What one caller may see of the schema: its field read rules' answer (field-view.ts). */
export interface FieldView {
  /** Identifies the view: '' when the caller reads every field; callers with equal keys see the same fields. */
  readonly key: string;
  /** The collections as the caller sees them: queries are parsed against this. */
  readonly registry: SchemaRegistry;
  /** A collection or global as the caller sees it. */
  of(collection: CollectionRuntime): ViewedCollection;
}

/** One field's read rule, where it is declared. */
export interface FieldReadRule {
  readonly slug: string;
  readonly field: string;
  readonly isGlobal: boolean;
  readonly rule: FieldAccessFn;
}

/** The common part of every operation's single args object: the runtime, the collection, and who is acting. */
export interface OperationArgs {
  runtime: Runtime;
  collection: CollectionRuntime;
  /** The caller, or null when anonymous. */
  user: AuthUser | null;
  req?: Request;
  /** Skip every access rule (the local API, unless asked otherwise; server-side flows such as registration). */
  overrideAccess?: boolean;
  /** What hooks share for the request; default: one per `req` (a new one without it). */
  context?: HookContext;
  /** Whether hooks' `api` skips access; default: `overrideAccess` (false for a flow that skips access for an anonymous caller: registration). */
  hookAccess?: boolean;
}

/**
 * The common part of an operation's args alone, without its own options (query, id, data...): what rules
 * and hooks are handed, so they never see an operation's options as if they were their own.
 */
export function operationArgs(args: OperationArgs): OperationArgs {
  return { runtime: args.runtime, collection: args.collection, user: args.user, req: args.req, overrideAccess: args.overrideAccess, context: args.context, hookAccess: args.hookAccess };
}

/** Writes also say whether hidden fields may be written and which fields the caller may not set. */
export interface WriteArgs extends OperationArgs {
  /** Server-side callers may write hidden fields. */
  trusted?: boolean;
  /**
   * Fields this caller may not set (403); default: the read-only-fields hooks unless access is overridden.
   * When given, the fields' own create/update rules are asked too, even with access overridden.
   */
  readOnly?: ReadonlySet<string>;
}

/** How a read was served, told to callers that accept cached answers (the REST routes set headers from it). */
export interface ReadOutcome {
  /** True when the answer came from a cache, false when it was read from the database just now. */
  hit: boolean;
  /** A strong validator of the answer (quoted, as the ETag header carries it). */
  etag: string;
}

/** Opts a read into caching: the caller takes a shared answer it must not mutate, and learns how it was served. */
export type ReadObserver = (outcome: ReadOutcome) => void;

/**
 * A read whose access is resolved and which has not touched the database yet: the one point where a
 * cache can answer instead. Everything that can change the answer is here.
 */
export interface ResolvedRead {
  kind: 'list' | 'record';
  /** The operation's args: runtime, collection, user, req. */
  args: OperationArgs;
  query: ListQuery | RecordQuery;
  /** Record reads: the id, normalised to lower-case hex. */
  id?: string;
  /** The read rule's constraint; undefined when the rule allowed everything. */
  constraint: WhereNode | undefined;
  /** What includeDeleted resolved to (the delete rule may narrow which deleted records show). */
  deleted: { deleted: boolean; node?: WhereNode };
  /** The caller's field view (FieldView.key): callers who may read different fields get different answers. */
  view: string;
  /** Present when the caller accepts a cached answer. */
  cacheable?: ReadObserver;
}

/** A list total about to be counted exactly: the read it belongs to and its final Mongo filter (never empty). */
export interface CountRequest {
  read: ResolvedRead;
  /** The filter the page is read with: query, access, soft delete, relation conditions resolved to ids. */
  filter: Record<string, unknown>;
}

