// Cache invalidation from the change bus on a stand-in runtime: this router's writes drop entries at once,
// the stream's echoes of them drop nothing more (in answers and totals alike), other writers' stream events
// and events without ids still do.
import { Types } from 'mongoose';
import { createCacheStore, type CacheStore } from '../../lib/cache/cache-store';
import { LIST_TAG, idTag, invalidateOnChange, relatedTag } from '../../lib/cache/invalidation';
import { type ChangeEvent, createChangeBus } from '../../lib/changes/change-bus';
import type { CollectionRuntime, Runtime } from '../../lib/operations/runtime';

const silent = { error: jest.fn(), warn: () => undefined, info: () => undefined, debug: () => undefined };

function setup(softDelete = false) {
  const changes = createChangeBus(silent);
  const collections = new Map([['posts', { descriptor: { slug: 'posts', softDelete } } as unknown as CollectionRuntime]]);
  const stores = new Map<string, CacheStore>([['posts', createCacheStore(60, 100)], ['authors', createCacheStore(60, 100)]]);
  const totals = new Map<string, CacheStore>([['posts', createCacheStore(60, 100)]]);
  const stop = invalidateOnChange({ changes, collections } as Pick<Runtime, 'changes' | 'collections'>, [stores, totals]);
  /** Stores an entry, as a read that ended after every event so far would. */
  const fill = (store: CacheStore, key: string, tags: string[]) => store.settle(store.begin(tags), key, { value: key, etag: '""', tags });
  return { changes, stores, totals, stop, fill, posts: stores.get('posts')!, authors: stores.get('authors')!, postTotals: totals.get('posts')! };
}

const row = (updatedAt: number, extra: Record<string, unknown> = {}) => ({ _id: new Types.ObjectId(), title: 't', updatedAt: new Date(updatedAt), ...extra });
const event = (origin: ChangeEvent['origin'], type: ChangeEvent['type'], docs: Array<Record<string, unknown>>, ids = docs.map((d) => String(d._id))): ChangeEvent => ({
  scope: 'collection',
  slug: 'posts',
  type,
  ids,
  docs,
  origin,
});

describe('cache invalidation', () => {
  it('drops at a local write, then keeps what was filled since when the stream echoes that write', () => {
    const { changes, posts, authors, postTotals, fill } = setup();
    const a = row(1000);
    const id = String(a._id);
    fill(posts, 'record', [idTag(id)]);
    fill(posts, 'list', [LIST_TAG]);
    fill(postTotals, 'total', [LIST_TAG]);
    fill(authors, 'populated', [LIST_TAG, relatedTag('posts')]);
    changes.emitChange(event('local', 'create', [a]));
    expect([posts.size(), postTotals.size(), authors.size()]).toEqual([0, 0, 0]);
    // Read again after the write: these entries hold it.
    fill(posts, 'record', [idTag(id)]);
    fill(posts, 'list', [LIST_TAG]);
    fill(postTotals, 'total', [LIST_TAG]);
    fill(authors, 'populated', [LIST_TAG, relatedTag('posts')]);
    // A read in flight when the echo arrives started after the write too: it is kept.
    const ticket = posts.begin([LIST_TAG]);
    changes.emitChange(event('stream', 'create', [a]));
    posts.settle(ticket, 'other list', { value: 1, etag: '""', tags: [LIST_TAG] });
    expect(posts.get('record')).toBeDefined();
    expect(posts.get('list')).toBeDefined();
    expect(posts.get('other list')).toBeDefined();
    expect(postTotals.get('total')).toBeDefined();
    expect(authors.get('populated')).toBeDefined();
  });

  it('still drops for another writer’s change, also one to a record this router just wrote', () => {
    const { changes, posts, authors, fill } = setup();
    const a = row(1000);
    const id = String(a._id);
    changes.emitChange(event('local', 'update', [a]));
    fill(posts, 'record', [idTag(id)]);
    fill(authors, 'populated', [relatedTag('posts')]);
    // Another version of the record: not the echo.
    changes.emitChange(event('stream', 'update', [{ ...a, updatedAt: new Date(2000) }]));
    expect(posts.get('record')).toBeUndefined();
    expect(authors.get('populated')).toBeUndefined();
    // The echo consumed once: a second event with the same version is someone else's.
    fill(posts, 'record', [idTag(id)]);
    changes.emitChange(event('stream', 'update', [a]));
    expect(posts.get('record')).toBeDefined();
    changes.emitChange(event('stream', 'update', [a]));
    expect(posts.get('record')).toBeUndefined();
    // A stream event whose id the server did not tell: everything of the collection.
    fill(posts, 'record', [idTag(id)]);
    fill(posts, 'list', [LIST_TAG]);
    changes.emitChange(event('stream', 'update', [], []));
    expect(posts.size()).toBe(0);
  });

  it('recognises the echo of a delete, and of a soft delete (an update setting deletedAt on the stream)', () => {
    const hard = setup();
    const a = row(1000);
    hard.changes.emitChange(event('local', 'delete', [a]));
    hard.fill(hard.posts, 'list', [LIST_TAG]);
    hard.changes.emitChange(event('stream', 'delete', [], [String(a._id)]));
    expect(hard.posts.get('list')).toBeDefined();

    const soft = setup(true);
    const b = row(1000, { deletedAt: null });
    // A soft delete publishes the row as it was and the stamps it wrote.
    soft.changes.emitChange({ ...event('local', 'delete', [b]), stamps: { updatedAt: new Date(1500), deletedAt: new Date(1500) } });
    soft.fill(soft.posts, 'list', [LIST_TAG]);
    soft.changes.emitChange(event('stream', 'update', [{ ...b, deletedAt: new Date(1500), updatedAt: new Date(1500) }]));
    expect(soft.posts.get('list')).toBeDefined();
  });

  it('drops for local writes without rows (auth flows) and their echoes alike, and stops on unsubscribe', () => {
    const { changes, posts, fill, stop } = setup();
    const a = row(1000);
    changes.emitChange(event('local', 'update', [], [String(a._id)]));
    fill(posts, 'list', [LIST_TAG]);
    changes.emitChange(event('stream', 'update', [a]));
    expect(posts.get('list')).toBeUndefined();
    stop();
    fill(posts, 'list', [LIST_TAG]);
    changes.emitChange(event('local', 'create', [row(3000)]));
    expect(posts.get('list')).toBeDefined();
  });
});
