// Checks `computed`, the keys a collection's or global's afterRead hooks add to records: each a name of its
// own (not a stored field's), a type the document and the generated types can say, and hooks that add it.
import { isRecord } from '../util/is-record';

const COMPUTED_TYPES = ['text', 'string', 'textarea', 'email', 'number', 'boolean', 'date', 'datetime', 'select', 'array', 'json'];
const ARRAY_ITEM_TYPES = ['text', 'string', 'textarea', 'email', 'number', 'boolean', 'date', 'datetime'];
const BASE_KEYS = ['type', 'required', 'description'];
const TYPE_KEYS: Record<string, readonly string[]> = { select: ['options', 'hasMany'], array: ['of'] };

/** What the owner of `computed` has that the check compares with. */
export interface ComputedOwner {
  /** Every stored field name, built-in ones included (auth fields, id, timestamps). */
  storedFields: ReadonlySet<string>;
  /** Whether the owner has an afterRead hook: without one, nothing adds the keys. */
  hasAfterRead: boolean;
  /** Whether a name may name a field at all (letters, digits, _; not a reserved name). */
  validName: (name: string) => boolean;
}

/** Reports every problem of a `computed` option at `path`. */
export function checkComputed(path: string, computed: unknown, owner: ComputedOwner, problems: string[]): void {
  if (computed === undefined) return;
  if (!isRecord(computed)) {
    problems.push(`${path}: must be an object mapping key names to { type, required?, description? }`);
    return;
  }
  if (Object.keys(computed).length > 0 && !owner.hasAfterRead) problems.push(`${path}: declares keys, but no afterRead hook adds them (hooks.afterRead)`);
  for (const [name, entry] of Object.entries(computed)) {
    const at = `${path}.${name}`;
    if (!owner.validName(name)) problems.push(`${at}: "${name}" is not a valid key name (letters, digits, _; not a system field name)`);
    else if (owner.storedFields.has(name)) problems.push(`${at}: "${name}" is a stored field; a computed key needs a name of its own`);
    if (!isRecord(entry)) {
      problems.push(`${at}: must be an object with a type`);
      continue;
    }
    const type = entry.type;
    if (!(typeof type === 'string' && COMPUTED_TYPES.includes(type))) {
      problems.push(`${at}.type: must be one of ${COMPUTED_TYPES.join(', ')} (got ${JSON.stringify(type)})`);
      continue;
    }
    for (const key of Object.keys(entry)) {
      if (!BASE_KEYS.includes(key) && !(TYPE_KEYS[type] ?? []).includes(key)) problems.push(`${at}.${key}: unknown option`);
    }
    for (const key of ['required', 'hasMany'] as const) {
      if (entry[key] !== undefined && typeof entry[key] !== 'boolean') problems.push(`${at}.${key}: must be a boolean`);
    }
    if (entry.description !== undefined && typeof entry.description !== 'string') problems.push(`${at}.description: must be a string`);
    if (type === 'select' && !(Array.isArray(entry.options) && entry.options.length > 0 && entry.options.every((o) => typeof o === 'string'))) {
      problems.push(`${at}.options: a select key needs a non-empty array of strings`);
    }
    if (type === 'array' && entry.of !== undefined && !(typeof entry.of === 'string' && ARRAY_ITEM_TYPES.includes(entry.of))) {
      problems.push(`${at}.of: unknown array element type "${typeof entry.of === 'string' ? entry.of : JSON.stringify(entry.of)}"`);
    }
  }
}
