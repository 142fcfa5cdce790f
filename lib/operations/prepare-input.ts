// What every write does with a body before touching the database, in order:
//   1. which fields this caller may not set (features' read-only fields, field `create`/`update` rules): a 403;
//   2. beforeValidate hooks (after a check of the field names the client sent, when there are any);
//   3. validation: the client's mistakes, every one at once (400);
//   4. relationships must name readable records; features rewrite the body (auth checks and hashes passwords);
//   5. beforeChange hooks, the collection's then the fields'. What they changed, taken together, is then
//      validated, cast, relation-checked and transformed ONCE, as steps 3-4 do for a body; a failure there
//      is the host's bug: a 500 naming the hook that last set the failing field.
// Errors of steps 1-4 are returned (the caller asserts them, and may index them: batch create); hooks throw.
import { isDeepStrictEqual } from 'node:util';
import type { BeforeChangeArgs, HookRecord } from '../config/hooks';
import type { ErrorDetail } from '../errors';
import { type ValidatedInput, validateInput } from '../schema/validate-input';
import { isRecord } from '../util/is-record';
import { findMissingRelations } from './check-relations';
import type { Request } from 'express';
import type { AuthUser } from '../config/types';
import type { CollectionDescriptor, FieldDescriptor } from '../schema/descriptors';
import { type CallerMemo, type RequestState, callerMemo, rememberForCaller } from './request-state';
import { HookError, callHook, fieldHookArgs, fieldRuleLabel, hookBase, hookLabel, runReplacing } from './hooks';
import { readOnlyFieldsOf, type WriteArgs } from './runtime';

/** How a body is written: its validation mode, and what hooks are told. */
export interface WriteIntent {
  mode: 'create' | 'update';
  operation: 'create' | 'update' | 'restore';
  /** Updates and restores: the record before the change, as hooks see it (when they are configured). */
  originalDoc?: HookRecord;
  id?: string;
  /** False leaves the relationship check to a caller that batches it (batch create). */
  checkRelations?: boolean;
}

/** A body made ready to write: storage-ready input, and the body as the hooks left it (afterChange gets it). */
export interface PreparedWrite {
  input: ValidatedInput;
  data: Record<string, unknown>;
}

/** Names of validation errors about which fields a body names, not their values: checked before beforeValidate. */
const NAME_ERRORS = new Set(['unknown_field', 'read_only', 'forbidden_field', 'invalid_body']);

/** Validates, transforms and runs the before-hooks on a create or update body; see the file's head for the steps. */
export async function prepareWrite(args: WriteArgs, body: unknown, intent: WriteIntent): Promise<PreparedWrite> {
  const { collection } = args;
  const { hooks } = collection.descriptor;
  const readOnly = await writeDenied(args, body, intent.mode);
  const clientOptions = { mode: intent.mode, allowHidden: args.trusted, readOnly };
  let data = isRecord(body) ? body : {};
  let input: ValidatedInput;
  if (hooks.beforeValidate.length === 0 || !isRecord(body)) {
    input = validateInput(body, collection.descriptor, clientOptions);
  } else {
    const named = validateInput(body, collection.descriptor, clientOptions).errors.filter((e) => NAME_ERRORS.has(e.code));
    if (named.length) return { input: { set: {}, unset: [], errors: named }, data };
    const base = hookBase(args, intent.operation);
    const { changedBy, check } = changeTracker(body);
    data = await runReplacing<BeforeChangeArgs>(collection, 'hooks.beforeValidate', hooks.beforeValidate, { ...base, operation: intent.operation, originalDoc: intent.originalDoc, id: intent.id }, 'data', { ...body }, check);
    // One validation of the body as the hooks left it (hidden fields too: what they added is the application's
    // own). A bad value a hook set is the hook's bug (a 500 naming it); the client's values, and what nobody
    // filled in, are the client's mistakes (a 400).
    input = validateInput(data, collection.descriptor, { mode: intent.mode, allowHidden: true });
    const byHook = input.errors.filter((error) => error.field !== undefined && data[error.field] !== undefined && changedBy.has(error.field));
    // eslint-disable-next-line @typescript-eslint/no-non-null-assertion -- errors blamed on a hook name a field, and changedBy holds every field a hook set
    if (byHook.length) throw invalidOutput(changedBy.get(byHook[0].field!)!, byHook);
  }
  if (input.errors.length === 0 && intent.checkRelations !== false) input.errors.push(...(await findMissingRelations(args, [input.set])));
  // Features check what they own even beside other errors (a weak password is reported with a bad e-mail).
  await transform(args, input, intent.mode);
  if (input.errors.length || (hooks.beforeChange.length === 0 && collection.fieldBeforeChange.length === 0)) return { input, data: withoutUndefined(data) };
  return { input, data: await runBeforeChange(args, intent, input, withoutUndefined(data)) };
}

/**
 * The body alone, before any record is read: which fields this caller may not set (403), unknown fields and
 * bad values (400). A bulk write checks its body so once, before anything is written; each record's
 * hooks and checks follow in prepareWrite.
 */
export async function checkBody(args: WriteArgs, body: unknown, mode: 'create' | 'update'): Promise<ErrorDetail[]> {
  const readOnly = await writeDenied(args, body, mode);
  return validateInput(body, args.collection.descriptor, { mode, allowHidden: args.trusted, readOnly }).errors;
}

/** Lets every feature rewrite the input (auth: password policy and hash). */
async function transform(args: WriteArgs, input: ValidatedInput, mode: 'create' | 'update'): Promise<void> {
  const { runtime, collection } = args;
  const caller = { user: args.user, req: args.req, overrideAccess: args.overrideAccess, actor: args.actor };
  for (const transformer of runtime.hooks.transformInput) await transformer({ collection: collection.descriptor, input, op: mode, ...caller });
}

/** The collection's beforeChange hooks, then each field's; every hook's output is checked and merged into `input`. */
async function runBeforeChange(args: WriteArgs, intent: WriteIntent, input: ValidatedInput, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const { collection } = args;
  const base = { ...hookBase(args, intent.operation), operation: intent.operation, originalDoc: intent.originalDoc, id: intent.id };
  const initial = snapshot(body);
  const { changedBy, check } = changeTracker(body);
  let data = await runReplacing<BeforeChangeArgs>(collection, 'hooks.beforeChange', collection.descriptor.hooks.beforeChange, base, 'data', body, check);
  for (const field of collection.fieldBeforeChange) {
    // eslint-disable-next-line @typescript-eslint/no-non-null-assertion -- fieldBeforeChange lists only fields with beforeChange hooks
    const list = field.config.hooks!.beforeChange!;
    for (let index = 0; index < list.length; index++) {
      const label = hookLabel(collection, `fields.${field.name}.hooks.beforeChange`, index, list[index]);
      const value = await callHook(label, list[index], fieldHookArgs(base, field.name, data[field.name], { data, originalDoc: base.originalDoc }));
      if (value === undefined) continue;
      data = { ...data, [field.name]: value };
      check(data, label);
    }
  }
  if (changedBy.size) await applyHookOutput(args, intent.mode, input, initial, data, changedBy);
  return data;
}

/**
 * Follows which hook last changed each key of the body (`check` runs after each hook): a value that cannot
 * be stored is blamed on the hook that set it.
 */
function changeTracker(body: Record<string, unknown>): { changedBy: Map<string, string>; check: (next: Record<string, unknown>, label: string) => void } {
  const changedBy = new Map<string, string>();
  let before = snapshot(body);
  const check = (next: Record<string, unknown>, label: string) => {
    for (const key of changedKeys(before, next)) changedBy.set(key, label);
    before = snapshot(next);
  };
  return { changedBy, check };
}

/** A deep copy to compare a hook's output against (in-place changes included); null when the body cannot be copied. */
function snapshot(body: Record<string, unknown>): Record<string, unknown> | null {
  try {
    return structuredClone(body);
  } catch {
    return null;
  }
}

/**
 * Checks what the hooks changed together (values set, cleared with null, or removed) as a body is checked,
 * once, and merges it into `input`. Anything that could not be stored is a HookError naming the hook that
 * last changed the field: nothing is written.
 */
async function applyHookOutput(args: WriteArgs, mode: 'create' | 'update', input: ValidatedInput, before: Record<string, unknown> | null, after: Record<string, unknown>, changedBy: ReadonlyMap<string, string>): Promise<void> {
  const changed = changedKeys(before, after);
  if (changed.length === 0) return;
  const blame = (errors: readonly ErrorDetail[]) => (errors.find((e) => e.field && changedBy.has(e.field))?.field ?? '') ;
  // eslint-disable-next-line @typescript-eslint/no-non-null-assertion -- called only when some hook changed the body
  const label = (errors: readonly ErrorDetail[]) => changedBy.get(blame(errors)) ?? [...changedBy.values()].at(-1)!;
  const given = Object.fromEntries(changed.filter((key) => after[key] !== undefined).map((key) => [key, after[key]]));
  // Partial, as an update body: a required field a hook leaves out of a create is checked below.
  const output = validateInput(given, args.collection.descriptor, { mode: 'update', allowHidden: true });
  if (output.errors.length === 0) output.errors.push(...(await findMissingRelations(args, [output.set])));
  if (output.errors.length === 0) await transform(args, output, mode);
  const fields = args.collection.descriptor.fields;
  for (const key of changed) {
    if (after[key] !== undefined || mode === 'update') continue;
    const field = Object.hasOwn(fields, key) ? fields[key] : undefined;
    if (field?.required && field.config.default === undefined) output.errors.push({ field: key, message: `${key} is required`, code: 'required' });
  }
  if (output.errors.length) throw invalidOutput(label(output.errors), output.errors);
  for (const key of changed) {
    // eslint-disable-next-line @typescript-eslint/no-dynamic-delete -- input.set is a plain record of field names
    delete input.set[key];
    input.unset = input.unset.filter((name) => name !== key);
  }
  Object.assign(input.set, output.set);
  if (mode === 'update') input.unset.push(...output.unset);
}

/** The keys a hook set, changed (in place too) or removed; all of them when the body could not be copied. */
function changedKeys(before: Record<string, unknown> | null, after: Record<string, unknown>): string[] {
  const keys = new Set([...Object.keys(after), ...Object.keys(before ?? {})]);
  return [...keys].filter((key) => !before || !isDeepStrictEqual(before[key], after[key]));
}

function invalidOutput(label: string, errors: readonly ErrorDetail[]): HookError {
  const list = errors.map((e) => (e.field ? `${e.field}: ${e.message}` : e.message)).join('; ');
  return new HookError(`content-router: the ${label} hook produced a record that cannot be stored (${list}); nothing was written`);
}

function withoutUndefined(body: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) if (value !== undefined) out[key] = value;
  return out;
}

/** Field write answers of one request, by rule, so a batch asks each rule once. */
const decided: CallerMemo<Map<string, Promise<unknown>>> = callerMemo('field write answers');

/**
 * The fields this caller may not set in `body`: the features' read-only fields, and fields whose `create`
 * or `update` rule does not answer true (each asked once per request, only for fields the body names).
 */
async function writeDenied(args: WriteArgs, body: unknown, mode: 'create' | 'update'): Promise<ReadonlySet<string> | undefined> {
  // A flow that names its read-only fields itself (registration) overrides the collection's rules only: the
  // body is still a client's, so the fields' own rules are asked for its caller.
  if (args.overrideAccess && !args.readOnly) return undefined;
  const { runtime, collection, user } = args;
  const provided = args.readOnly ?? readOnlyFieldsOf(runtime, collection.descriptor, user, mode);
  if (!isRecord(body)) return provided;
  const fields = collection.descriptor.fields;
  const ruled = Object.keys(body).filter((key) => Object.hasOwn(fields, key) && fields[key].config.access?.[mode] !== undefined);
  if (ruled.length === 0) return provided;
  const denied = new Set(provided);
  await Promise.all(
    ruled.map(async (key) => {
      if ((await fieldWriteAnswer(args, collection.descriptor, fields[key], mode)) !== true) denied.add(key);
    }),
  );
  return denied;
}

/**
 * What a field's `create` or `update` rule answers this caller, asked once per request whoever asks (a
 * write's checks, the caller's schema). A rule that throws is a 500 whose log names it, as a read rule's is.
 */
export function fieldWriteAnswer(
  args: { state?: RequestState; req?: Request; user: AuthUser | null },
  descriptor: CollectionDescriptor,
  field: FieldDescriptor,
  mode: 'create' | 'update',
): Promise<unknown> {
  const answers = rememberForCaller(decided, args, () => new Map<string, Promise<unknown>>());
  const label = fieldRuleLabel(descriptor, field.name, mode);
  let answer = answers.get(label);
  // eslint-disable-next-line @typescript-eslint/no-non-null-assertion -- callers pass only fields with a rule for this mode
  if (!answer) answers.set(label, (answer = callHook(label, field.config.access![mode]!, { user: args.user, req: args.req })));
  return answer;
}

/** The body as access rules receive it (`data`): any object, else undefined. */
export function bodyOf(body: unknown): Record<string, unknown> | undefined {
  return typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : undefined;
}
