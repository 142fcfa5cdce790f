// How deep a parsed JSON value nests, checked without recursion: a body nested thousands of levels deep
// parses fine but overflows the stack of whatever walks it recursively next (JSON.stringify, a cast).

/** Whether `value` nests arrays or objects more than `max` levels deep. */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  const pending: Array<[unknown, number]> = [[value, 0]];
  while (pending.length > 0) {
    const [item, depth] = pending.pop() as [unknown, number];
    if (typeof item !== 'object' || item === null) continue;
    if (depth >= max) return true;
    for (const child of Object.values(item)) pending.push([child, depth + 1]);
  }
  return false;
}
