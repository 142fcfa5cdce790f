// Runs the host's hooks for the operations: one args object per call, the request's shared `context`
// (request-state.ts), the local API bound to the caller, and errors that say which hook failed. A
// ContentError a hook throws is the answer as it is; anything else becomes a HookError naming the hook (a
// 500 whose log says where). Failures given to afterError: after-error.ts.
import type { Request } from 'express';
import type { FieldHookArgs, HookApi, HookContext, HookOperation } from '../config/hooks';
import { ContentError, isErrorAnswer, misusedStatus } from '../errors';
import { isRecord } from '../util/is-record';
import { stateOf } from './request-state';
import type { CollectionRuntime, OperationArgs } from './runtime';

/** A hook failed with an error that is not a ContentError, or produced something that cannot be stored. */
export class HookError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'HookError';
  }
}

/** True when a write's body passes hooks before it is stored: beforeValidate, beforeChange, a field's beforeChange. */
export function hasBeforeWriteHooks(collection: CollectionRuntime): boolean {
  const { hooks } = collection.descriptor;
  return hooks.beforeValidate.length > 0 || hooks.beforeChange.length > 0 || collection.fieldBeforeChange.length > 0;
}

/** True when a hook of a write is told of the record before the change (`originalDoc`, `previousDoc`). */
export function hooksSeeOriginal(collection: CollectionRuntime): boolean {
  return hasBeforeWriteHooks(collection) || collection.descriptor.hooks.afterChange.length > 0;
}

/** How a field access rule is named in errors and logs: `posts fields.notes.access.read`. */
export function fieldRuleLabel(descriptor: { slug: string; isGlobal: boolean }, field: string, op: 'read' | 'create' | 'update'): string {
  return `${descriptor.isGlobal ? 'global ' : ''}"${descriptor.slug}" fields.${field}.access.${op}`;
}

/** How a hook is named in errors and logs: `posts hooks.beforeChange[1] (slugify)`. */
export function hookLabel(collection: CollectionRuntime, list: string, index: number, hook: unknown): string {
  const name = typeof hook === 'function' && hook.name ? ` (${hook.name})` : '';
  return `${collection.descriptor.isGlobal ? 'global ' : ''}"${collection.descriptor.slug}" ${list}[${index}]${name}`;
}

/** The hook each ContentError that passed through callHook came from, for a log that must name it (reportAfterWrite). */
const thrownBy = new WeakMap<ContentError, string>();

/** A value, or the promise of it: read hooks that answer at once keep a record's read steps free of promises. */
export type MaybePromise<T> = T | Promise<T>;

/**
 * What a hook's failure is thrown as: a ContentError as it is (remembering the hook), a nested call's
 * HookError as it is (named already: it stays one error), anything else (a non-Error value too, or a
 * ContentError whose status is not an error status: the hook's bug) a HookError naming the hook. `label`
 * may be a function: a hook called once per record is named only when it fails.
 */
function hookFailure(label: string | (() => string), error: unknown): unknown {
  const name = () => (typeof label === 'string' ? label : label());
  if (isErrorAnswer(error)) {
    if (!thrownBy.has(error)) thrownBy.set(error, name());
    return error;
  }
  if (error instanceof HookError) return error;
  const misuse = misusedStatus(error);
  const message = error instanceof Error ? `${misuse ? `it threw ${misuse}: ` : ''}${error.message}` : `it threw a non-Error value (${typeof error})`;
  return new HookError(`content-router: the ${name()} hook failed: ${message}`, { cause: error });
}

/**
 * Where no caller is there to answer (a write that stands, a webhook's body), a hook's failure as a HookError
 * naming the hook: a HookError as it is, a ContentError named after the hook that threw it (`fallback` when
 * the hook is not known).
 */
export function namedHookError(error: HookError | ContentError, fallback: string): HookError {
  if (error instanceof HookError) return error;
  return new HookError(`content-router: the ${thrownBy.get(error) ?? fallback} hook failed: ${error.message}`, { cause: error });
}

/** Calls one hook and returns its answer as it gave it: a value at once, or a promise; failures as hookFailure says. */
export function callHookNow<A>(label: string | (() => string), hook: (args: A) => unknown, args: A): unknown {
  let result: unknown;
  try {
    result = hook(args);
  } catch (error) {
    throw hookFailure(label, error);
  }
  if (typeof (result as { then?: unknown } | null | undefined)?.then !== 'function') return result;
  return Promise.resolve(result).catch((error: unknown) => {
    throw hookFailure(label, error);
  });
}

/** Calls one hook and waits for its answer; see callHookNow. */
export function callHook<A>(label: string | (() => string), hook: (args: A) => unknown, args: A): Promise<unknown> {
  try {
    return Promise.resolve(callHookNow(label, hook, args));
  } catch (error) {
    return Promise.reject(error);
  }
}

/** What every collection hook of one operation shares: operation, slug, caller, context, and the bound API. */
export interface HookBase {
  operation: HookOperation;
  collection: string;
  user: OperationArgs['user'];
  req?: Request;
  context: HookContext;
  readonly api: HookApi;
  actor?: OperationArgs['actor'];
  draft?: true;
}

/** A field hook's args: the operation's shared part (without `api`, which field hooks do not get) and the field's own. */
export function fieldHookArgs(base: HookBase, field: string, value: unknown, extra: Pick<FieldHookArgs, 'data' | 'doc' | 'originalDoc'>): FieldHookArgs {
  const args: FieldHookArgs = { value, field, collection: base.collection, operation: base.operation, user: base.user, req: base.req, context: base.context, ...extra };
  if (base.draft) args.draft = true;
  return args;
}

/**
 * The shared part of an operation's hook args, made once per operation (or batch of records) and copied
 * into each hook's args. Plain data, `api` bound at once: a copy reads every property anyway, and V8 copies
 * an object with a getter many times slower (read hooks run once per record; docs/performance.md).
 */
export function hookBase(args: OperationArgs, operation: HookOperation, collection = args.collection): HookBase {
  const state = stateOf(args);
  const { runtime, user, req } = args;
  const overrideAccess = args.hookAccess ?? args.overrideAccess;
  const api = runtime.hookApi({ user, req, overrideAccess: overrideAccess === true, state });
  const base: HookBase = { operation, collection: collection.descriptor.slug, user, req, context: state.context, api };
  // Only on the router's own writes: a caller's hooks get no `actor` key at all.
  if (args.actor) base.actor = args.actor;
  // Only on a working copy's operations: hooks of the published record get no `draft` key at all.
  if (collection.descriptor.variant === 'draft') base.draft = true;
  return base;
}

/**
 * Runs a list of hooks that may replace `value` (the body or the record): each gets the current one under
 * `key`; a returned object replaces it, undefined keeps it (changed in place or not at all), and anything
 * else is a HookError naming the hook. `check` sees every hook's output before the next hook runs.
 * Synchronous while the hooks answer at once and there is no `check` (a failure then throws at once); a
 * promise from the first hook that returns one.
 */
export function runReplacing<A extends object>(
  collection: CollectionRuntime,
  listName: string,
  hooks: ReadonlyArray<(args: A) => unknown>,
  args: Omit<A, 'data' | 'doc'>,
  key: 'data' | 'doc',
  value: Record<string, unknown>,
  check?: (next: Record<string, unknown>, label: string) => Promise<void> | void,
): MaybePromise<Record<string, unknown>> {
  const from = (start: number, value: Record<string, unknown>): MaybePromise<Record<string, unknown>> => {
    let current = value;
    for (let index = start; index < hooks.length; index++) {
      const label = () => hookLabel(collection, listName, index, hooks[index]);
      // Not `{ ...args, [key]: current }`: V8 copies a spread followed by another property several times
      // slower than Object.assign does, and read hooks run once per record (docs/performance.md).
      const hookArgs = Object.assign({}, args) as Record<string, unknown>;
      hookArgs[key] = current;
      const result = callHookNow(label, hooks[index], hookArgs as A);
      if (check || result instanceof Promise) {
        const before = current;
        return (async () => {
          const next = replacement(label, before, await result);
          if (check) await check(next, label());
          return from(index + 1, next);
        })();
      }
      current = replacement(label, current, result);
    }
    return current;
  };
  return from(0, value);
}

/** What a replacing hook leaves: its object, or `current` when it returned nothing; anything else is a HookError. */
function replacement(label: () => string, current: Record<string, unknown>, result: unknown): Record<string, unknown> {
  if (result === undefined) return current;
  if (!isRecord(result)) throw new HookError(`content-router: the ${label()} hook returned ${describe(result)}, not an object; nothing was written`);
  return result;
}

/** Runs hooks whose return value does not matter (afterDelete, afterError). */
export async function runAll<A>(collection: CollectionRuntime, listName: string, hooks: ReadonlyArray<(args: A) => unknown>, args: A): Promise<void> {
  for (let index = 0; index < hooks.length; index++) await callHook(hookLabel(collection, listName, index, hooks[index]), hooks[index], args);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}
