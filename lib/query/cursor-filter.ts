// The keyset condition behind cursor pagination: rows strictly after (or before) a position in a given
// sort order, correct with ties on every sort prefix and with null/missing values (which Mongo sorts lowest).
import { matchNothing } from './to-mongo-filter';
import type { CursorPosition, SortItem } from './types';

function equalTo(value: unknown): Record<string, unknown> {
  // $eq null matches null and missing alike, and Mongo sorts the two as equal.
  return { $eq: value };
}

/**
 * The condition on one sort path selecting values that come later in the walk, or undefined when none
 * can. `ascending` is the walk's direction over this path (sort direction flipped for `prev`).
 */
function laterThan(path: string, value: unknown, ascending: boolean): Record<string, unknown> | undefined {
  if (ascending) return { [path]: value === null ? { $ne: null } : { $gt: value } };
  // Descending: nothing is lower than null; below a value come smaller values and then the nulls
  // (except for `_id`, which is never null).
  if (value === null) return undefined;
  if (path === '_id') return { [path]: { $lt: value } };
  return { $or: [{ [path]: { $lt: value } }, { [path]: { $eq: null } }] };
}

/**
 * The Mongo filter selecting rows strictly after (`next`) or strictly before (`prev`) `position` in
 * `sort` order: the OR, over each sort item i, of "equal on items before i and later on item i".
 * For `prev`, query with reverseSort(sort) and reverse the page.
 */
export function cursorFilter(sort: readonly SortItem[], position: CursorPosition): Record<string, unknown> {
  if (position.values.length !== sort.length) {
    throw new Error(`cursorFilter: ${position.values.length} cursor values for ${sort.length} sort items`);
  }
  const forward = position.direction === 'next';
  const branches: Array<Record<string, unknown>> = [];
  sort.forEach((item, index) => {
    const ascending = (item.direction === 1) === forward;
    const later = laterThan(item.path, position.values[index], ascending);
    if (!later) return;
    const branch: Record<string, unknown> = {};
    for (let tie = 0; tie < index; tie += 1) branch[sort[tie].path] = equalTo(position.values[tie]);
    branches.push(Object.assign(branch, later));
  });
  if (branches.length === 0) return matchNothing();
  return branches.length === 1 ? branches[0] : { $or: branches };
}

/** The sort with every direction flipped: how a `prev` page is fetched (then reversed). */
export function reverseSort(sort: readonly SortItem[]): SortItem[] {
  return sort.map((item) => ({ ...item, direction: item.direction === 1 ? -1 : 1 }));
}
