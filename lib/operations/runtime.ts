// The router's live state that every operation reads: resolved config, schema registry, models,
// serializers, the change bus, the outage log, and the hooks features add to (with the types of what they
// add). Built once by contentRouter(). The args every operation takes: operation-args.ts.
import type { Connection, Model, Types } from 'mongoose';
import type { Request } from 'express';
import type { ResolvedConfig } from '../config/resolve-config';
import type { HookApi, HookContext } from '../config/hooks';
import type { CountRequest, FieldReadRule, FieldView, ResolvedRead } from './operation-args';
import type { AccessFn, AuthUser } from '../config/types';
import type { CollectionDescriptor, FieldDescriptor, SchemaRegistry } from '../schema/descriptors';
import type { ValidatedInput } from '../schema/validate-input';
import { type RecordSerializer, createRecordSerializer } from '../schema/to-record';
import type { ChangeBus } from '../changes/change-bus';
import type { OutageLog } from './outage-log';
import type { ChangeRecorder } from './write/stored-change';

export interface CollectionRuntime {
  readonly descriptor: CollectionDescriptor;
  readonly model: Model<Record<string, unknown>>;
  readonly serialize: RecordSerializer;
  /**
   * Excludes hidden fields at the database, so they never even reach the process on reads; none when
   * beforeRead hooks, which see the stored record whole, are configured.
   */
  readonly projection: Readonly<Record<string, 0>> | undefined;
  /** The record with hidden fields too, as hooks see it. */
  readonly serializeAll: RecordSerializer;
  /** True when records pass through hooks on their way out (beforeRead, afterRead, a field's afterRead). */
  readonly readHooks: boolean;
  /** True when a caller may see less than the serializer shows: read hooks, or a field read rule. */
  readonly readShaped: boolean;
  /** Fields with afterRead hooks, in field order. */
  readonly fieldAfterRead: readonly FieldDescriptor[];
  /** Fields with beforeChange hooks, in field order. */
  readonly fieldBeforeChange: readonly FieldDescriptor[];
}

/**
 * Resolves the caller of a request from credentials a feature owns. Only a request it says carries one of
 * its credentials is given to it; the others go to the next authenticator, and finally to the host's req.user.
 */
export interface Authenticator {
  /** True when the request presents a credential this authenticator owns (known from the headers alone). */
  presented(req: Request): boolean;
  /** The user of that credential; rejects with UnauthorizedError for a bad one. */
  authenticate(req: Request): Promise<AuthUser>;
}

/** Supplies the access function used when a collection configures none; undefined passes to the next provider. */
export type DefaultAccessProvider = (collection: CollectionDescriptor, op: 'read' | 'create' | 'update' | 'delete') => AccessFn | undefined;

/** Fields this caller may not write (e.g. role and verified for non-admins on auth collections); a 403 when sent. */
export type ReadOnlyFieldsProvider = (
  collection: CollectionDescriptor,
  user: AuthUser | null,
  op: 'create' | 'update',
) => ReadonlySet<string> | undefined;

/**
 * Runs after body validation and before the write: may add errors to `input.errors` or rewrite
 * `input.set` (auth collections check the password policy and hash the password here). `req` and
 * `overrideAccess` are the caller's, for checks that apply its access rules (upload fields).
 */
export type InputTransformer = (args: {
  collection: CollectionDescriptor;
  input: ValidatedInput;
  op: 'create' | 'update';
  user: AuthUser | null;
  req?: Request;
  overrideAccess?: boolean;
}) => Promise<void>;

/** Answers a resolved read, from a cache or by calling `load` (the database read). */
export type ReadThrough = <T>(read: ResolvedRead, load: () => Promise<T>) => Promise<T>;

/** Answers a count, from a cache or by calling `count` (countDocuments). */
export type CountThrough = (request: CountRequest, count: () => Promise<number>) => Promise<number>;

/**
 * Records that live outside the collections (the uploads feature's files): population resolves a field
 * whose `relationTo` is `slug` through `load`, so operations need not know the feature.
 */
export interface RelationSource {
  readonly slug: string;
  /** The records' descriptor: its read rule decides which of them a caller may read (a cache keys answers on it). */
  readonly descriptor: CollectionDescriptor;
  /**
   * The records among `ids` this caller may read, serialized, keyed by id hex; one query however many ids.
   * Ids it leaves out stay ids in the parent, as a relationship to an unreadable record does.
   */
  load(args: { runtime: Runtime; user: AuthUser | null; req?: Request; overrideAccess?: boolean }, ids: Types.ObjectId[]): Promise<ReadonlyMap<string, unknown>>;
}

/** Who a hook's `api` runs as: the hook's caller. */
export interface HookCaller {
  user: AuthUser | null;
  req?: Request;
  overrideAccess: boolean;
  context: HookContext;
}

/** Binds the local API to a hook's caller. */
export type HookApiFactory = (caller: HookCaller) => HookApi;

/** What features plug into the operations: ordered lists, each feature adding its own entries. */
export interface RuntimeHooks {
  /** The first one the request presents a credential to checks it; with none, the host's req.user counts. */
  readonly authenticate: Authenticator[];
  /** The first provider returning a rule supplies a collection's missing rule; else "authenticated users". */
  readonly defaultAccess: DefaultAccessProvider[];
  /** Every provider's fields are read-only (the union). */
  readonly readOnlyFields: ReadOnlyFieldsProvider[];
  /** Run in order on every create/update body, for every caller. */
  readonly transformInput: InputTransformer[];
  /** Wrap every collection read once its access is resolved, the first listed outermost (the response cache). */
  readonly readThrough: ReadThrough[];
  /** Wrap every exact list total (countDocuments), the first listed outermost (the totals cache). */
  readonly countThrough: CountThrough[];
  /** Where population looks up a relationTo that is not a collection. */
  readonly relationSources: RelationSource[];
  /** The first binds hooks' `api` (the local API, added by the router once it is built). */
  readonly hookApi: HookApiFactory[];
  /**
   * Whether a collection's updates must know the record as it was just before the change (realtime: who
   * could read it before). Any yes makes an update read the record first and write at its revision.
   */
  readonly priorState: PriorStateProvider[];
  /**
   * Record every stored change in the session that stored it (versions, the audit log): see
   * write/stored-change.ts. Any entry makes every write run in a transaction where the server has them.
   */
  readonly changeStored: ChangeRecorder[];
}

/** Says whether the updates of a collection must carry the record as it was before them. */
export type PriorStateProvider = (collection: CollectionDescriptor) => boolean;

/** Whether any feature needs an update of `collection` to know the record just before it. */
export function needsPriorState(runtime: Runtime, collection: CollectionDescriptor): boolean {
  return runtime.hooks.priorState.some((wants) => wants(collection));
}

export interface Runtime {
  readonly config: ResolvedConfig;
  readonly connection: Connection;
  /** Every collection's descriptor by slug: relationship paths resolve through it. */
  readonly registry: SchemaRegistry;
  readonly collections: ReadonlyMap<string, CollectionRuntime>;
  readonly globals: ReadonlyMap<string, CollectionRuntime>;
  /** Every write is published here (emitChange) after it succeeded. */
  readonly changes: ChangeBus;
  /** Where a database outage is logged, once, whichever part of the router meets it. */
  readonly outage: OutageLog;
  readonly hooks: RuntimeHooks;
  /** Every field read rule of the schema; empty when no field has one (then every caller sees every field). */
  readonly fieldReadRules: readonly FieldReadRule[];
  /** The views of the schema callers have had, by key, and the view of a caller who reads every field. */
  readonly views: { readonly full: FieldView; readonly byKey: Map<string, FieldView> };
}

/** Empty hook lists for a new runtime. */
export function createRuntimeHooks(): RuntimeHooks {
  return { authenticate: [], defaultAccess: [], readOnlyFields: [], transformInput: [], readThrough: [], countThrough: [], relationSources: [], hookApi: [], priorState: [], changeStored: [] };
}

/** Pairs a descriptor with its model and precomputed serializer and projection. */
export function createCollectionRuntime(descriptor: CollectionDescriptor, model: Model<Record<string, unknown>>): CollectionRuntime {
  const fields = Object.values(descriptor.fields);
  const hidden = fields.filter((f) => f.hidden).map((f) => f.name);
  const { beforeRead, afterRead } = descriptor.hooks;
  const fieldAfterRead = Object.freeze(fields.filter((f) => f.config.hooks?.afterRead?.length));
  const readHooks = beforeRead.length > 0 || afterRead.length > 0 || fieldAfterRead.length > 0;
  return Object.freeze({
    descriptor,
    model,
    serialize: createRecordSerializer(descriptor),
    projection: hidden.length && beforeRead.length === 0 ? Object.freeze(Object.fromEntries(hidden.map((name) => [name, 0 as const]))) : undefined,
    serializeAll: createRecordSerializer(descriptor, true),
    readHooks,
    readShaped: readHooks || fields.some((f) => f.config.access?.read !== undefined),
    fieldAfterRead,
    fieldBeforeChange: Object.freeze(fields.filter((f) => f.config.hooks?.beforeChange?.length)),
  });
}

/** Looks up a collection by slug; operations call it with slugs that config validation guaranteed. */
export function getCollection(runtime: Runtime, slug: string): CollectionRuntime {
  const collection = runtime.collections.get(slug);
  if (!collection) throw new Error(`content-router: unknown collection "${slug}"`);
  return collection;
}

/** The read-only fields every provider names for this caller, or undefined when none does. */
export function readOnlyFieldsOf(runtime: Runtime, collection: CollectionDescriptor, user: AuthUser | null, op: 'create' | 'update'): ReadonlySet<string> | undefined {
  let union: Set<string> | undefined;
  for (const provider of runtime.hooks.readOnlyFields) {
    const fields = provider(collection, user, op);
    if (!fields?.size) continue;
    union ??= new Set();
    for (const field of fields) union.add(field);
  }
  return union;
}

/** The default rule of a collection operation: the first provider's, if any. */
export function defaultAccessOf(runtime: Runtime, collection: CollectionDescriptor, op: 'read' | 'create' | 'update' | 'delete'): AccessFn | undefined {
  for (const provider of runtime.hooks.defaultAccess) {
    const rule = provider(collection, op);
    if (rule) return rule;
  }
  return undefined;
}

// Kept for the callers that publish a write of their own (auth's token flows) until they store it through
// the operations; new code stores through write/pipeline.ts.
export { publishWrite } from './write/stored-change';

// The args types moved to operation-args.ts; still exported here for the callers that import them from here.
export type { CountRequest, FieldReadRule, FieldView, OperationArgs, ReadObserver, ReadOutcome, ResolvedRead, ViewedCollection, WriteArgs } from './operation-args';
export { operationArgs } from './operation-args';
