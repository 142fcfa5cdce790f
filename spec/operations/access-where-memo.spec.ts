// An access rule's `where` is parsed once per distinct result, not on every request: the same result (a fresh
// object each time, as rules return them) gives the same parsed constraint; another result its own; a result
// holding values JSON cannot tell apart from others (ObjectIds, dates) is parsed every time; a where
// the parser refuses is refused every time, never remembered; the memory is bounded.
import { Types } from 'mongoose';
import { type AccessCheck, checkAccess } from '../../lib/operations/access';
import { parseWhere } from '../../lib/query/parse-where';
import type { CollectionDescriptor } from '../../lib/schema/descriptors';
import { posts, registry } from '../query/fixtures';

const ID = '65a1b2c3d4e5f60718293a4b';

/** A read check of a copy of `posts` (a collection of its own) whose read rule answers `rule(user)`. */
function checker(rule: (user: { id: string }) => unknown) {
  const descriptor = { ...posts, access: { ...posts.access, read: ({ user }: { user: { id: string } }) => rule(user) } } as unknown as CollectionDescriptor;
  // Only what a rule's answer is judged with: the registry, the collection's descriptor, the caller.
  return (user: { id: string }) => checkAccess({ runtime: { registry }, collection: { descriptor }, user, op: 'read' } as unknown as AccessCheck);
}

describe("an access rule's where", () => {
  it('is parsed once for results that are the same (fresh objects each time)', async () => {
    const check = checker((user) => ({ or: [{ author: { eq: user.id } }, { status: { eq: 'published' } }] }));
    const first = await check({ id: ID });
    const second = await check({ id: ID });
    expect(second).toBe(first);
    expect(first).toEqual(parseWhere({ or: [{ author: { eq: ID } }, { status: { eq: 'published' } }] }, posts, registry, { trusted: true }));
  });

  it('is parsed for each distinct result, each its own', async () => {
    const check = checker((user) => ({ author: { eq: user.id } }));
    const other = '65a1b2c3d4e5f60718293a4c';
    const a = await check({ id: ID });
    const b = await check({ id: other });
    expect(b).not.toBe(a);
    expect(a).toEqual(parseWhere({ author: { eq: ID } }, posts, registry, { trusted: true }));
    expect(b).toEqual(parseWhere({ author: { eq: other } }, posts, registry, { trusted: true }));
    expect(await check({ id: ID })).toBe(a);
  });

  it('is parsed every time when it holds values that are not plain JSON', async () => {
    const at = new Date('2026-01-02T03:04:05.000Z');
    const results: unknown[] = [{ author: { eq: new Types.ObjectId(ID) } }, { publishedAt: { gte: at } }];
    for (const result of results) {
      const check = checker(() => result);
      const first = await check({ id: ID });
      expect(first).toEqual(parseWhere(result, posts, registry, { trusted: true }));
      expect(await check({ id: ID })).not.toBe(first);
    }
  });

  it('keeps the constraint it gives from being changed by its users', async () => {
    const node = await checker(() => ({ tags: { in: ['a', 'b'] } }))({ id: ID });
    expect(Object.isFrozen(node)).toBe(true);
  });

  it('that the parser refuses is refused every time as the host bug it is', async () => {
    const check = checker(() => ({ nope: { eq: 1 } }));
    await expect(check({ id: ID })).rejects.toThrow(/the read rule of "posts" returned an invalid where/);
    await expect(check({ id: ID })).rejects.toThrow(/the read rule of "posts" returned an invalid where/);
  });

  it('is remembered for a bounded number of results, the least recently used forgotten first', async () => {
    const check = checker((user) => ({ views: { gte: Number(user.id) } }));
    const first = await check({ id: '0' });
    for (let i = 1; i <= 1000; i++) await check({ id: String(i) });
    const again = await check({ id: '0' });
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
  });
});
