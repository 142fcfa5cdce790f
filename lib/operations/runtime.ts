// The router's live state that every operation reads: resolved config, schema registry, models,
// serializers, the change bus, the outage log, and the hooks features add to, with the types of what they
// add. Built once by contentRouter(). The args every operation takes live here too: they and the hooks'
// types refer to each other (one module, so no import circle). Publishing a write: write/stored-change.ts.
import type { Connection, Model, Types } from 'mongoose';
import type { Request } from 'express';
import type { ResolvedConfig } from '../config/resolve-config';
import type { FieldAccessFn, HookApi } from '../config/hooks';
import type { AccessFn, AuthUser, SystemActor } from '../config/types';
import type { ListQuery, RecordQuery, WhereNode } from '../query/types';
import type { CollectionDescriptor, FieldDescriptor, SchemaRegistry } from '../schema/descriptors';
import type { ValidatedInput } from '../schema/validate-input';
import { type RecordSerializer, createRecordSerializer } from '../schema/to-record';
import type { ChangeBus, WriteStamps } from '../changes/change-bus';
import type { ClientSession } from 'mongoose';
import type { RawDoc } from '../schema/to-record';
import type { VersionOp } from '../schema/version-schema';
import type { AccountEventAction } from '../config/audit-entry';
import type { OutageLog } from './outage-log';
import type { RequestState } from './request-state';

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
  /**
   * A drafts collection's working copies (`versions.drafts`): the same operations run on it as on the
   * published records (its descriptor's `variant` is `draft`), in a sibling collection with the same ids.
   */
  readonly drafts?: CollectionRuntime;
  /** A versioned collection's history (`versions`), shared by its working copies. */
  readonly versions?: Model<Record<string, unknown>>;
}

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
  /** The request state the operation runs in (its hooks' context, what was decided for its caller); default: `req`'s (a new one without it). */
  state?: RequestState;
  /** Whether hooks' `api` skips access; default: `overrideAccess` (false for a flow that skips access for an anonymous caller: registration). */
  hookAccess?: boolean;
  /** A write the router makes on its own behalf (auth's flows): told to hooks, input transformers and change listeners. */
  actor?: SystemActor;
  /** What the write is to the record's history when not the operation's own (a publish...): StoredChange.versionOp. */
  versionOp?: VersionOp;
  /** Where the write comes from when it is not a request nor server code (`schedule`): StoredChange.origin. */
  origin?: string;
}

/**
 * The common part of an operation's args alone, without its own options (query, id, data...): what rules
 * and hooks are handed, so they never see an operation's options as if they were their own.
 */
export function operationArgs(args: OperationArgs): OperationArgs {
  return { runtime: args.runtime, collection: args.collection, user: args.user, req: args.req, overrideAccess: args.overrideAccess, state: args.state, hookAccess: args.hookAccess, actor: args.actor, versionOp: args.versionOp, origin: args.origin };
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
  /** Set when the router writes on its own behalf (see OperationArgs.actor). */
  actor?: SystemActor;
}) => Promise<void>;

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

/** Answers a resolved read, from a cache or by calling `load` (the database read). */
export type ReadThrough = <T>(read: ResolvedRead, load: () => Promise<T>) => Promise<T>;

/** A list total about to be counted exactly: the read it belongs to and its final Mongo filter (never empty). */
export interface CountRequest {
  read: ResolvedRead;
  /** The filter the page is read with: query, access, soft delete, relation conditions resolved to ids. */
  filter: Record<string, unknown>;
}

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

/** Who a hook's `api` runs as: the hook's caller, in its request state (so nested calls share its context and decisions). */
export interface HookCaller {
  user: AuthUser | null;
  req?: Request;
  overrideAccess: boolean;
  state: RequestState;
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
  /**
   * Told of every stored change once it is committed (drafts' too, which the change bus never carries):
   * work that must not hold the write up nor roll it back (versions' retention). Synchronous; a listener
   * starts what it needs and reports its own failures.
   */
  readonly changeCommitted: ((change: StoredChange, by: Pick<OperationArgs, 'runtime'>) => void)[];
  /** Hear account events, webhook retries and refused writes (the audit log): see audit-events.ts. */
  readonly auditEvents: AuditEventListener[];
}

/** One stored change of one record (or global, or file), as the write read it back from the database. */
export interface StoredChange {
  /** What was written: its descriptor, and a versioned collection's working copies and history (recorders write there). */
  readonly collection: Pick<CollectionRuntime, 'descriptor' | 'drafts' | 'versions'>;
  /** What happened to the record, as the change bus names it (a restore is an update). */
  readonly type: 'create' | 'update' | 'delete';
  /** The operation that made the change. */
  readonly operation: 'create' | 'update' | 'delete' | 'restore';
  /** The record's id as stored (lower-case hex; a global's slug). */
  readonly id: string;
  /**
   * The record just before the change (raw: hidden fields included), when the write knows it: every write
   * made at a revision it read (bulk writes, If-Match, constrained updates, hooks, a feature asking for
   * the prior state), and every delete. Absent for a create, and for an unconditional single update.
   */
  readonly before?: RawDoc;
  /** The record as stored, the database's answer to the write itself; absent for a permanent delete. */
  readonly after?: RawDoc;
  /** Updates: the fields set or cleared (a restore: deletedAt too). */
  readonly fields?: readonly string[];
  /** A soft delete's (or restore's) stamps, for subscribers that see only `before` (ChangeEvent.stamps). */
  readonly stamps?: WriteStamps;
  /**
   * Who made the change: the caller's user, the router itself (SystemActor) for its own writes, or null
   * (anonymous, or a server-side call without a user).
   */
  readonly actor: AuthUser | SystemActor | null;
  /** Publish the id alone, no rows (files: their subscribers know them by id). */
  readonly idOnly?: boolean;
  /**
   * What the change is to the record's history when the operation alone does not say: a publish, an
   * unpublish, a restore from a version (OperationArgs.versionOp). A change of a working copy (its
   * collection's descriptor has `variant: 'draft'`) is a `draft` otherwise.
   */
  readonly versionOp?: VersionOp;
  /** Where the change came from: `rest` (a request), `local` (server code), `schedule`, or a system flow's name. */
  readonly origin: string;
}

// The audit log's events besides stored changes (emitted through audit-events.ts).
/** The account and delivery events the audit log records (stored changes are recorded at the seam). */
export type AuditEventAction = AccountEventAction | 'schedule';

/** The writes a `refused` event may name: what the refused write would have recorded had it been stored. */
export type RefusedWriteAction = 'create' | 'update' | 'delete' | 'restore' | 'publish' | 'unpublish' | 'draft' | 'schedule' | 'upload' | 'upload.delete';

/** One event that is not a stored change of a record: an account event, a webhook retry, or a refused write. */
export interface AuditEvent {
  /** The event; `refused` is a write the router refused (401, 403, 409, 412, 428). */
  action: AuditEventAction | 'refused';
  /** For `refused`: the write that was refused (`create`, `update`, `delete`, `publish`...). */
  refusedAction?: RefusedWriteAction;
  /** Who acted, when known (a failed login's account is the resource, not the actor). */
  actor: AuthUser | SystemActor | null;
  /** Which record the event is about (an account, an API key's owner, a webhook endpoint...). */
  resource?: { collection?: string; global?: string; id?: string };
  /** Field names only, never hidden ones. */
  changedFields?: readonly string[];
  /** The answer's status and problem code. */
  outcome: { status: number; code?: string };
  /** The request the event happened in, if any (the audit log reads method, path, address, agent from it). */
  req?: Request;
  /** Where it came from when not a request: `local`, `schedule`. */
  origin?: string;
}

/** Hears audit events; a listener stores them away from the caller's path and never throws into it. */
export type AuditEventListener = (event: AuditEvent) => void;

/** The operation a change is stored for: its runtime, its request (if any) and the request state it counts as written for. */
export type WriteBy = Pick<OperationArgs, 'runtime' | 'state' | 'req'>;

/**
 * Records a stored change in the session that stored it (versions, audit); a failure rolls the write back.
 * `by`: the operation that stored it (the audit log reads the request from it).
 */
export interface ChangeRecorder {
  (change: StoredChange, session: ClientSession | undefined, by: WriteBy): Promise<void>;
  /**
   * Whether it records the changes of `collection`; absent: of every collection. A write of a collection no
   * recorder records needs no transaction (write/stored-change.ts recordsChanges).
   */
  readonly records?: (collection: Pick<CollectionRuntime, 'descriptor' | 'versions'>) => boolean;
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
  /**
   * Binds hooks' `api` to a hook's caller: the local API (lib/local), which is built on this runtime, so the
   * factory passes it in when it builds the runtime, as a function of the local API it builds next.
   */
  readonly hookApi: HookApiFactory;
  /** Every field read rule of the schema; empty when no field has one (then every caller sees every field). */
  readonly fieldReadRules: readonly FieldReadRule[];
  /** The views of the schema callers have had, by key, and the view of a caller who reads every field. */
  readonly views: { readonly full: FieldView; readonly byKey: Map<string, FieldView> };
}

/** Empty hook lists for a new runtime. */
export function createRuntimeHooks(): RuntimeHooks {
  return { authenticate: [], defaultAccess: [], readOnlyFields: [], transformInput: [], readThrough: [], countThrough: [], relationSources: [], priorState: [], changeStored: [], changeCommitted: [], auditEvents: [] };
}

/** Pairs a descriptor with its model and precomputed serializer and projection; `related`: its working copies and history, if it keeps them. */
export function createCollectionRuntime(
  descriptor: CollectionDescriptor,
  model: Model<Record<string, unknown>>,
  related: { drafts?: CollectionRuntime; versions?: Model<Record<string, unknown>> } = {},
): CollectionRuntime {
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
    ...(related.drafts && { drafts: related.drafts }),
    ...(related.versions && { versions: related.versions }),
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
