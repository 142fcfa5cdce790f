// The echo filter on its own, event by event: it drops exactly the stream's echo of each local write (a
// soft delete or restore by the stamps it wrote, a hard delete by the next `delete` of the record, each
// consumed once) and lets every other writer's change through, deletes above all.
import { Types } from 'mongoose';
import type { ChangeEvent, WriteStamps } from '../../lib/changes/change-bus';
import { rowsById } from '../../lib/changes/change-bus';
import { createEchoFilter, type EchoFilter } from '../../lib/changes/echo-filter';
import type { RawDoc } from '../../lib/schema/to-record';

const at = (ms: number) => new Date(ms);

function event(origin: ChangeEvent['origin'], type: ChangeEvent['type'], id: string, docs?: RawDoc[], stamps?: WriteStamps): ChangeEvent {
  return { scope: 'collection', slug: 'posts', type, ids: [id], origin, ...(docs ? { docs } : {}), ...(stamps ? { stamps } : {}) };
}

/** Passes `change` through `filter` as the consumers do: true when it is news. */
function isNews(filter: EchoFilter, change: ChangeEvent, softDelete: boolean): boolean {
  return filter.news(change, rowsById(change.docs), softDelete) !== undefined;
}

describe('echo filter', () => {
  const id = new Types.ObjectId().toHexString();
  const _id = new Types.ObjectId(id);
  const live = { _id, title: 't', updatedAt: at(1000), deletedAt: null };

  /** This router soft-deletes the record at 2000 and restores it at 3000. */
  function softDeletedAndRestored(): { filter: EchoFilter; deleted: RawDoc; restored: RawDoc } {
    const filter = createEchoFilter();
    const deleted = { ...live, updatedAt: at(2000), deletedAt: at(2000) };
    const restored = { ...live, updatedAt: at(3000), deletedAt: null };
    // The delete operation publishes the row as it was before (readers' access), and the stamps it wrote.
    expect(isNews(filter, event('local', 'delete', id, [live], { updatedAt: at(2000), deletedAt: at(2000) }), true)).toBe(true);
    expect(isNews(filter, event('local', 'update', id, [restored]), true)).toBe(true);
    return { filter, deleted, restored };
  }

  it('soft delete, restore, then another writer’s hard delete: the delete gets through', () => {
    const { filter } = softDeletedAndRestored();
    // Neither echo arrived (a server that leaves findOneAndUpdate off the stream).
    expect(isNews(filter, event('stream', 'delete', id), true)).toBe(true);
  });

  it('soft delete, restore, then another writer’s soft delete: it gets through, described or not', () => {
    const described = softDeletedAndRestored().filter;
    expect(isNews(described, event('stream', 'update', id, [{ ...live, updatedAt: at(4000), deletedAt: at(4000) }], { updatedAt: at(4000), deletedAt: at(4000) }), true)).toBe(true);
    // A script that sets only deletedAt: the full document still shows the restore's updatedAt.
    const bare = softDeletedAndRestored().filter;
    expect(isNews(bare, event('stream', 'update', id, [{ ...live, updatedAt: at(3000), deletedAt: at(4000) }]), true)).toBe(true);
  });

  it('soft delete and restore: their own echoes are dropped, even when the looked-up document shows the restore', () => {
    const { filter, restored } = softDeletedAndRestored();
    // updateLookup reads the document when the event is sent: after the restore already.
    expect(isNews(filter, event('stream', 'update', id, [restored], { updatedAt: at(2000), deletedAt: at(2000) }), true)).toBe(false);
    expect(isNews(filter, event('stream', 'update', id, [restored], { updatedAt: at(3000), deletedAt: null }), true)).toBe(false);
    // Each consumed once: the same again is someone else's, and so is any delete.
    expect(isNews(filter, event('stream', 'update', id, [restored], { updatedAt: at(3000), deletedAt: null }), true)).toBe(true);
    expect(isNews(filter, event('stream', 'delete', id), true)).toBe(true);
  });

  it('soft delete then another writer’s hard delete, and soft delete then its echo, on servers that describe no update', () => {
    const filter = createEchoFilter();
    filter.news(event('local', 'delete', id, [live], { updatedAt: at(2000), deletedAt: at(2000) }), rowsById([live]), true);
    expect(isNews(filter, event('stream', 'delete', id), true)).toBe(true);
    const other = createEchoFilter();
    other.news(event('local', 'delete', id, [live], { updatedAt: at(2000), deletedAt: at(2000) }), rowsById([live]), true);
    expect(isNews(other, event('stream', 'update', id, [{ ...live, updatedAt: at(2000), deletedAt: at(2000) }]), true)).toBe(false);
  });

  it('own hard delete, then another writer re-creates the record and deletes it: both get through', () => {
    const filter = createEchoFilter();
    filter.news(event('local', 'delete', id, [live]), rowsById([live]), false);
    // The echo of the hard delete never came; the record exists again.
    expect(isNews(filter, event('stream', 'create', id, [{ _id, title: 'again', updatedAt: at(5000) }]), false)).toBe(true);
    expect(isNews(filter, event('stream', 'delete', id), false)).toBe(true);
  });

  it('own hard delete: its echo is the next delete of the record, consumed once', () => {
    const filter = createEchoFilter();
    filter.news(event('local', 'delete', id, [live]), rowsById([live]), false);
    expect(isNews(filter, event('stream', 'delete', id), false)).toBe(false);
    expect(isNews(filter, event('stream', 'delete', id), false)).toBe(true);
  });

  it('own permanent delete on a soft-delete collection is a hard delete: an update setting deletedAt is not its echo', () => {
    const filter = createEchoFilter();
    filter.news(event('local', 'delete', id, [live]), rowsById([live]), true);
    expect(isNews(filter, event('stream', 'update', id, [{ ...live, updatedAt: at(2000), deletedAt: at(2000) }], { updatedAt: at(2000), deletedAt: at(2000) }), true)).toBe(true);
    expect(isNews(filter, event('stream', 'delete', id), true)).toBe(false);
  });

  it('own update, then another writer’s update that keeps updatedAt: described, it gets through; from the document alone it cannot be told (the documented limit)', () => {
    const mine = { ...live, title: 'mine', updatedAt: at(2000) };
    const theirs = { ...mine, title: 'theirs' };
    const described = createEchoFilter();
    described.news(event('local', 'update', id, [mine]), rowsById([mine]), false);
    // A real server describes the update: it did not set updatedAt, so it is not this router's write.
    expect(isNews(described, event('stream', 'update', id, [theirs], {}), false)).toBe(true);
    // The echo itself, described, still is.
    expect(isNews(described, event('stream', 'update', id, [theirs], { updatedAt: at(2000) }), false)).toBe(false);

    const bare = createEchoFilter();
    bare.news(event('local', 'update', id, [mine]), rowsById([mine]), false);
    // A replacement (or a server that describes no update) shows only the document: same record, same version.
    expect(isNews(bare, event('stream', 'update', id, [theirs]), false)).toBe(false);
    expect(isNews(bare, event('stream', 'update', id, [theirs]), false)).toBe(true);
  });

  it('an own write after an own hard delete of the same record supersedes the delete’s expectation', () => {
    const filter = createEchoFilter();
    filter.news(event('local', 'delete', id, [live]), rowsById([live]), false);
    const again = { _id, title: 'again', updatedAt: at(5000) };
    filter.news(event('local', 'create', id, [again]), rowsById([again]), false);
    expect(isNews(filter, event('stream', 'delete', id), false)).toBe(true);
  });

  it('forgets an expectation after a minute, and keeps the last ones when over its bound', () => {
    let now = 0;
    const filter = createEchoFilter(() => now);
    filter.news(event('local', 'delete', id, [live]), rowsById([live]), false);
    now = 61_000;
    expect(isNews(filter, event('stream', 'delete', id), false)).toBe(true);
    const ids = Array.from({ length: 20_001 }, () => new Types.ObjectId().toHexString());
    for (const each of ids) filter.news(event('local', 'delete', each), new Map(), false);
    expect(isNews(filter, event('stream', 'delete', ids[0]), false)).toBe(true);
    expect(isNews(filter, event('stream', 'delete', ids[20_000]), false)).toBe(false);
  });
});

describe('echo filter, when the stream is quicker than the local publication', () => {
  it('drops the local event of a write the stream announced first, and only that write', () => {
    const filter = createEchoFilter();
    const first = new Types.ObjectId().toHexString();
    const second = new Types.ObjectId().toHexString();
    const updatedAt = new Date('2026-01-01T00:00:00.000Z');
    const rows = new Map([
      [first, { _id: new Types.ObjectId(first), updatedAt } as RawDoc],
      [second, { _id: new Types.ObjectId(second), updatedAt } as RawDoc],
    ]);
    const created = (origin: 'local' | 'stream', ids: string[]): ChangeEvent => ({ ...event(origin, 'create', ids[0]), ids });
    // The stream announces the first record of a batch before the batch is published locally.
    expect(filter.news(created('stream', [first]), rows, false)).toBeDefined();
    const local = filter.news(created('local', [first, second]), rows, false);
    expect(local?.ids).toEqual([second]);
    // The second record's echo is still recognised; a later write of the first gets through.
    expect(filter.news(created('stream', [second]), rows, false)).toBeUndefined();
    const later = new Map([[first, { _id: new Types.ObjectId(first), updatedAt: new Date('2026-01-01T00:00:01.000Z') } as RawDoc]]);
    expect(filter.news({ ...event('local', 'update', first) }, later, false)).toBeDefined();
  });
});
