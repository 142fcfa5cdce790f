// Checks a collection's `sortable` and `indexes` options: every name a field the option can use, every
// direction 1 or -1, no duplicates, and no index MongoDB would refuse (two list fields, too many keys).
import { withAuthFields } from './auth-fields';
import { type IndexKeys, indexKeys, sameIndexKeys } from './index-keys';
import type { CollectionConfig, FieldConfig } from './types';
import { isRecord } from '../util/is-record';

/** MongoDB's limit is 32 keys per index; the router appends `_id`. */
const MAX_INDEX_FIELDS = 31;

/**
 * Every field a record has, the built-in ones described as config so one check covers them and the host's
 * alike. A field config that is not an object is left out (checkFields reports it; names of it read as unknown).
 */
function fieldsOf(c: CollectionConfig): Record<string, FieldConfig> {
  const system: Record<string, FieldConfig> = { id: { type: 'text' }, createdAt: { type: 'date' }, updatedAt: { type: 'date' } };
  if (c.softDelete === true) system.deletedAt = { type: 'date' };
  const host = Object.entries(c.auth ? withAuthFields(c.fields) : c.fields).filter(([, field]) => isRecord(field));
  return { ...Object.fromEntries(host), ...system };
}

function isList(field: FieldConfig): boolean {
  return field.type === 'array' || ('hasMany' in field && field.hasMany === true);
}

/** `sortable`: visible scalar fields (and the system ones), each once. */
export function checkSortable(path: string, c: CollectionConfig, problems: string[]): void {
  const sortable = c.sortable;
  if (sortable === undefined) return;
  if (!Array.isArray(sortable)) {
    problems.push(`${path}.sortable: must be an array of field names`);
    return;
  }
  if (!isRecord(c.fields)) return; // reported as a fields problem
  const fields = fieldsOf(c);
  sortable.forEach((name: unknown, i) => {
    const at = `${path}.sortable[${i}]`;
    const field = typeof name === 'string' && Object.hasOwn(fields, name) ? fields[name] : undefined;
    if (typeof name !== 'string') problems.push(`${at}: must be a field name`);
    else if (!field) problems.push(`${at}: unknown field "${name}"`);
    else if (field.hidden) problems.push(`${at}: hidden field "${name}" cannot be sorted on`);
    else if (field.type === 'json') problems.push(`${at}: json field "${name}" cannot be sorted on`);
    else if (isList(field)) problems.push(`${at}: list field "${name}" (array or hasMany) cannot be sorted on`);
    else if (sortable.indexOf(name) !== i) problems.push(`${at}: "${name}" is listed twice`);
  });
}

/** One `indexes[i].fields`: its key pattern when valid, else undefined (problems pushed). */
function checkIndexFields(at: string, value: unknown, fields: Record<string, FieldConfig>, problems: string[]): IndexKeys | undefined {
  if (!isRecord(value) || Object.keys(value).length === 0) {
    problems.push(`${at}: must be a non-empty object of field name -> 1 or -1`);
    return undefined;
  }
  const before = problems.length;
  const lists: string[] = [];
  for (const [name, direction] of Object.entries(value)) {
    const field = Object.hasOwn(fields, name) ? fields[name] : undefined;
    if (!field) problems.push(`${at}.${name}: unknown field "${name}"`);
    else if (field.type === 'json') problems.push(`${at}.${name}: json field "${name}" cannot be indexed`);
    else if (direction !== 1 && direction !== -1) problems.push(`${at}.${name}: must be 1 or -1`);
    if (field && isList(field)) lists.push(name);
  }
  if (lists.length > 1) problems.push(`${at}: at most one list field (array or hasMany) per index; MongoDB cannot index ${lists.join(' and ')} together`);
  if (Object.keys(value).length > MAX_INDEX_FIELDS) problems.push(`${at}: at most ${MAX_INDEX_FIELDS} fields`);
  return problems.length === before ? indexKeys(value as Record<string, 1 | -1>) : undefined;
}

/** `indexes`: an array of `{ fields }`, each a valid key pattern, none the same as another. */
export function checkIndexes(path: string, c: CollectionConfig, problems: string[]): void {
  if (c.indexes === undefined) return;
  if (!Array.isArray(c.indexes)) {
    problems.push(`${path}.indexes: must be an array of { fields: { name: 1 | -1 } }`);
    return;
  }
  if (!isRecord(c.fields)) return;
  const fields = fieldsOf(c);
  const seen: Array<IndexKeys | undefined> = [];
  c.indexes.forEach((entry: unknown, i) => {
    const at = `${path}.indexes[${i}]`;
    seen.push(undefined);
    if (!isRecord(entry)) {
      problems.push(`${at}: must be an object { fields }`);
      return;
    }
    for (const key of Object.keys(entry)) if (key !== 'fields') problems.push(`${at}.${key}: unknown option`);
    const keys = checkIndexFields(`${at}.fields`, entry.fields, fields, problems);
    if (!keys) return;
    const same = seen.findIndex((other) => other !== undefined && sameIndexKeys(other, keys));
    // An index walked backwards serves the reversed sort, so {a: 1} and {a: -1} are one index.
    if (same !== -1) problems.push(`${at}: the same index as indexes[${same}] (an index serves both directions)`);
    else seen[i] = keys;
  });
}
