// Public types of hooks and field access: where an application puts its own rules into every operation
// (docs/hooks.md). Each hook list runs in order, each hook may be async, and each gets one args object.
import type { Request } from 'express';
import type { AuthUser, SystemActor } from './user';

/** The operation a hook runs in. */
export type HookOperation = 'create' | 'update' | 'delete' | 'read' | 'restore';

/**
 * One plain object shared by every hook of one request, nested calls through `api` included: hooks pass
 * facts to each other here (`context.skipAudit = true` before a write the audit hook should not record).
 */
export type HookContext = Record<string, unknown>;

/**
 * The local API bound to the hook's caller: the same operations as `api.local`, run as the user the
 * hook runs for and sharing its `context`. Pass `{ overrideAccess: true }` to a call to skip access.
 * Its methods are declared by the local API (see `LocalApi`).
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by declaration merging in lib/local/local-api.ts: config/ sits below local/ and may not import its types
export interface HookApi {}

/** A stored record as hooks see it: `id`, every field (hidden ones included before reads apply access), timestamps. */
export type HookRecord = Record<string, unknown> & { id?: string };

/** What every collection and global hook receives. */
export interface HookArgs {
  operation: HookOperation;
  /** The collection's (or global's) slug. */
  collection: string;
  /** The caller, or null when anonymous. */
  user: AuthUser | null;
  /** The HTTP request, when the operation came from one (absent for local API calls without `req`). */
  req?: Request;
  context: HookContext;
  api: HookApi;
  /**
   * Present when the router writes on its own behalf rather than for the caller (auth's flows: a password
   * reset, a verification, a token mailed); `user` is then null and `actor.name` says which flow.
   */
  actor?: SystemActor;
  /**
   * `true` when the operation reads or writes a working copy of a drafts collection (`versions.drafts`):
   * a draft save, a draft created with `?draft=true`. Absent on the published record's operations.
   */
  draft?: true;
}

/** `beforeValidate` and `beforeChange`: the body about to be validated or written. */
export interface BeforeChangeArgs extends HookArgs {
  operation: 'create' | 'update' | 'restore';
  /** The body; return a replacement (or change it in place). Returning nothing keeps it. */
  data: Record<string, unknown>;
  /** Updates and restores: the stored record before the change. */
  originalDoc?: HookRecord;
  /** Updates and restores: the record's id. */
  id?: string;
}

/**
 * `beforeValidate`: the body as the client sent it (field names checked, values not yet), before validation.
 * The same shape as `beforeChange`'s arguments, named for the hook it types.
 */
export type BeforeValidateArgs = BeforeChangeArgs;

/** `afterChange`: the write is stored. */
export interface AfterChangeArgs extends HookArgs {
  operation: 'create' | 'update' | 'restore';
  /** The stored record (hidden fields included); return a replacement of what the caller receives. */
  doc: HookRecord;
  /** Updates and restores: the record before the change. */
  previousDoc?: HookRecord;
  /** The body as written, after the before-hooks. */
  data: Record<string, unknown>;
  id: string;
}

/** `beforeRead` (the stored record, hidden fields included) and `afterRead` (the record as the caller will see it). */
export interface ReadHookArgs extends HookArgs {
  /** `read` for reads; the write's operation for the record a write answers with. */
  operation: HookOperation;
  /** Return a replacement (or change it in place). Returning nothing keeps it. */
  doc: HookRecord;
}

/** `beforeDelete` (throw to veto) and `afterDelete`. */
export interface DeleteHookArgs extends HookArgs {
  operation: 'delete';
  id: string;
  /** The record as stored before the delete (hidden fields included). */
  doc: HookRecord;
  /** True when the record is removed for good; false for a soft delete. */
  permanent: boolean;
}

/** `afterError`: an operation of this collection failed with an error that is not a ContentError with an error status (400-599). */
export interface AfterErrorArgs extends HookArgs {
  error: unknown;
}

/** A hook whose non-undefined return value replaces `data` or `doc`. May be async. */
export type BeforeChangeHook = (args: BeforeChangeArgs) => unknown;
export type BeforeValidateHook = (args: BeforeValidateArgs) => unknown;
export type AfterChangeHook = (args: AfterChangeArgs) => unknown;
export type ReadHook = (args: ReadHookArgs) => unknown;
export type DeleteHook = (args: DeleteHookArgs) => unknown;
export type AfterErrorHook = (args: AfterErrorArgs) => unknown;

/**
 * Lifecycle hooks of a collection. A `ContentError` thrown by a hook answers with its status and code, and
 * nothing of the operation is written; any other error (a ContentError with a status outside 400-599 too) is
 * a 500, logged and given to `afterError`.
 */
export interface CollectionHooks {
  /** Before validation: fill in or normalise the body (a slug from the title). */
  beforeValidate?: BeforeValidateHook[];
  /** After validation, before the write: the last word on what is stored. */
  beforeChange?: BeforeChangeHook[];
  /** After the write: side effects (an audit entry); a failure is logged and cannot undo the write. */
  afterChange?: AfterChangeHook[];
  /** On every stored record read, before hidden fields and field access are applied. */
  beforeRead?: ReadHook[];
  /** On every record returned (lists, gets, population, write answers, realtime events): computed fields. */
  afterRead?: ReadHook[];
  /** Before a delete (soft or permanent): throw to veto it. */
  beforeDelete?: DeleteHook[];
  /** After a delete; a failure is logged and cannot undo the delete. */
  afterDelete?: DeleteHook[];
  /** Told of every failure that is not a ContentError with an error status (a 500), before it is answered and logged. */
  afterError?: AfterErrorHook[];
}

/** The hooks a global takes: writes and reads (it has no create or delete). */
export interface GlobalHooks {
  beforeChange?: BeforeChangeHook[];
  afterChange?: AfterChangeHook[];
  afterRead?: ReadHook[];
}

/** What a field hook receives. */
export interface FieldHookArgs {
  /** The field's value: in the body (`beforeChange`, undefined when the body does not set it) or in the record (`afterRead`). */
  value: unknown;
  /** The field's name. */
  field: string;
  collection: string;
  operation: HookOperation;
  /** `beforeChange`: the whole body. */
  data?: Record<string, unknown>;
  /** `afterRead`: the whole record. */
  doc?: HookRecord;
  /** `beforeChange` on updates: the stored record before the change. */
  originalDoc?: HookRecord;
  user: AuthUser | null;
  req?: Request;
  context: HookContext;
  /** `true` on a working copy's operations (see HookArgs.draft). */
  draft?: true;
}

/** Returns the field's new value; `undefined` keeps it. May be async. */
export type FieldHook = (args: FieldHookArgs) => unknown;

export interface FieldHooks {
  /** Runs on every create and update (after the collection's `beforeChange`), whether or not the body sets the field. */
  beforeChange?: FieldHook[];
  /** Runs on every record returned that shows the field (before the collection's `afterRead`). */
  afterRead?: FieldHook[];
}

/** What a field access rule receives: the caller only. A rule never sees a record. */
export interface FieldAccessArgs {
  user: AuthUser | null;
  req?: Request;
}

/** True allows; anything else denies. May be async. Decided once per request. */
export type FieldAccessFn = (args: FieldAccessArgs) => boolean | Promise<boolean>;

/**
 * Who may read and write one field. Default: allowed. An unreadable field is absent from every answer to
 * that caller and naming it in a query is a 400 like an unknown field; writing a field one may not write
 * is a 403 naming it. The local API without a user overrides field access, as it overrides collection access.
 */
export interface FieldAccess {
  read?: FieldAccessFn;
  /** Collections only: a global is never created (its first write is an update), so a global's field takes `read` and `update`. */
  create?: FieldAccessFn;
  update?: FieldAccessFn;
}
