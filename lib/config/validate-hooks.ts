// Checks the hooks and field access rules of a collection or global: known names only, each an array of
// functions (a typo such as `beforeCreate` would otherwise be a hook that silently never runs).
import { isRecord } from '../util/is-record';

/** The hook lists a collection takes. */
export const COLLECTION_HOOKS = ['beforeValidate', 'beforeChange', 'afterChange', 'beforeRead', 'afterRead', 'beforeDelete', 'afterDelete', 'afterError'] as const;
/** The hook lists a global takes: it is never created, deleted or listed. */
export const GLOBAL_HOOKS = ['beforeChange', 'afterChange', 'afterRead'] as const;
/** The hook lists a field takes. */
export const FIELD_HOOKS = ['beforeChange', 'afterRead'] as const;
/** The operations a field access rule decides. */
export const FIELD_ACCESS_OPS = ['read', 'create', 'update'] as const;
/** A global's fields: it is never created (its first write is an update), so a create rule would never run. */
export const GLOBAL_FIELD_ACCESS_OPS = ['read', 'update'] as const;

/** Reports every problem of a `hooks` option at `path`: unknown names, lists that are not arrays of functions. */
export function checkHooks(path: string, hooks: unknown, known: readonly string[], problems: string[]): void {
  if (hooks === undefined) return;
  if (!isRecord(hooks)) {
    problems.push(`${path}: must be an object of hook lists (${known.join(', ')})`);
    return;
  }
  for (const [name, list] of Object.entries(hooks)) {
    if (!known.includes(name)) problems.push(`${path}.${name}: unknown hook (expected ${known.join(', ')})`);
    else if (!Array.isArray(list)) problems.push(`${path}.${name}: must be an array of functions`);
    else list.forEach((hook, index) => {
      if (typeof hook !== 'function') problems.push(`${path}.${name}[${index}]: must be a function`);
    });
  }
}

/** Reports every problem of a field's `access` option: unknown operations, rules that are not functions. */
export function checkFieldAccess(path: string, access: unknown, problems: string[], known: readonly string[] = FIELD_ACCESS_OPS): void {
  if (access === undefined) return;
  if (!isRecord(access)) {
    problems.push(`${path}: must be an object of access functions (${known.join(', ')})`);
    return;
  }
  for (const [op, rule] of Object.entries(access)) {
    if (!known.includes(op)) problems.push(`${path}.${op}: unknown field access operation (expected ${known.join(', ')})`);
    else if (typeof rule !== 'function') problems.push(`${path}.${op}: must be a function`);
  }
}
