// Which index serves which sort (pure, over key patterns), the indexes a collection gets, and the
// start-up warning about sorts no index serves.
import type { CollectionConfig } from '../../lib';
import { describeCollection } from '../../lib/schema/describe-collection';
import { collectionIndexes } from '../../lib/schema/index-specs';
import { type IndexSpec, servesSort, sortServed } from '../../lib/schema/sort-coverage';
import { sortIndexWarning, unindexedSorts } from '../../lib/schema/sort-index-warning';

const index = (keys: Record<string, 1 | -1>, sparse = false): IndexSpec => (sparse ? { keys, options: { unique: true, sparse: true } } : { keys });

describe('servesSort', () => {
  it.each<[string, Record<string, 1 | -1>, Array<[string, 1 | -1]>, string[], boolean]>([
    ['the same keys', { a: 1, _id: 1 }, [['a', 1], ['_id', 1]], [], true],
    ['the keys walked backwards', { a: 1, _id: 1 }, [['a', -1], ['_id', -1]], [], true],
    ['a longer index with the sort as its prefix', { a: -1, _id: -1, b: 1 }, [['a', -1], ['_id', -1]], [], true],
    ['mixed directions, walked backwards', { a: 1, b: -1, _id: -1 }, [['a', -1], ['b', 1], ['_id', 1]], [], true],
    ['mixed directions that match neither walk', { a: 1, b: -1, _id: -1 }, [['a', 1], ['b', 1], ['_id', 1]], [], false],
    ['no tie-breaker in the index', { a: 1 }, [['a', 1], ['_id', 1]], [], false],
    ['the tie-breaker the other way', { a: 1, _id: -1 }, [['a', 1], ['_id', 1]], [], false],
    ['another field first', { b: 1, a: 1, _id: 1 }, [['a', 1], ['_id', 1]], [], false],
    ['an equality field first', { deletedAt: 1, a: 1, _id: 1 }, [['a', 1], ['_id', 1]], ['deletedAt'], true],
    ['an equality field first, not pinned', { deletedAt: 1, a: 1, _id: 1 }, [['a', 1], ['_id', 1]], [], false],
    ['no equality prefix while one is pinned', { a: 1, _id: 1 }, [['a', -1], ['_id', -1]], ['deletedAt'], true],
    ['an equality field in the middle', { a: 1, deletedAt: 1, _id: 1 }, [['a', 1], ['_id', 1]], ['deletedAt'], false],
    ['id alone', { _id: 1 }, [['_id', -1]], [], true],
    ['an index shorter than the sort', { a: 1 }, [['a', 1], ['b', 1], ['_id', 1]], [], false],
  ])('%s', (_name, keys, sort, equality, served) => {
    expect(servesSort(index(keys), sort, equality)).toBe(served);
  });

  it('never serves with a sparse index (it leaves records out)', () => {
    expect(servesSort(index({ a: 1, _id: 1 }, true), [['a', 1], ['_id', 1]])).toBe(false);
  });

  it('sortServed asks every index', () => {
    const indexes = [index({ b: 1 }), index({ a: -1, _id: -1 })];
    expect(sortServed(indexes, [['a', 1], ['_id', 1]])).toBe(true);
    expect(sortServed(indexes, [['b', 1], ['_id', 1]])).toBe(false);
    expect(sortServed([], [['a', 1], ['_id', 1]])).toBe(false);
  });
});

const POSTS: CollectionConfig = {
  slug: 'posts',
  fields: {
    title: { type: 'text' },
    slug: { type: 'text', unique: true },
    views: { type: 'number', index: true },
    publishedAt: { type: 'date' },
    status: { type: 'select', options: ['draft', 'published'] },
    author: { type: 'relationship', relationTo: 'authors' },
    tags: { type: 'array', of: 'text' },
    secret: { type: 'text', hidden: true },
    meta: { type: 'json' },
  },
};

const keysOf = (config: CollectionConfig) =>
  collectionIndexes(describeCollection(config)).map((spec) => (spec.options ? { ...spec.keys, unique: true } : spec.keys));

describe('collectionIndexes', () => {
  it('without sortable: the field indexes and the default sort, as before', () => {
    expect(keysOf(POSTS)).toEqual([
      { _id: 1 },
      { slug: 1, unique: true },
      { views: 1 },
      { author: 1 },
      { createdAt: -1, _id: -1 },
    ]);
  });

  it('one { field: 1, _id: 1 } per sortable field; createdAt and id already have theirs', () => {
    expect(keysOf({ ...POSTS, sortable: ['publishedAt', 'title', 'createdAt', 'id', 'views'] }).slice(5)).toEqual([
      { publishedAt: 1, _id: 1 },
      { title: 1, _id: 1 },
      { views: 1, _id: 1 },
    ]);
  });

  it('with softDelete, also { deletedAt: 1, field: 1, _id: 1 } (lists hide deleted records with deletedAt: null)', () => {
    expect(keysOf({ ...POSTS, softDelete: true, sortable: ['publishedAt', 'createdAt', 'deletedAt', 'id'] }).slice(5)).toEqual([
      { deletedAt: 1, createdAt: -1, _id: -1 },
      { publishedAt: 1, _id: 1 },
      { deletedAt: 1, publishedAt: 1, _id: 1 },
      // deletedAt's own sort index; it also serves id among live records.
      { deletedAt: 1, _id: 1 },
    ]);
  });

  it('declared indexes get the _id tie-breaker in the direction of their last key', () => {
    const indexes: CollectionConfig['indexes'] = [{ fields: { status: 1, publishedAt: -1 } }, { fields: { tags: 1 } }, { fields: { author: 1, id: -1 } }];
    expect(keysOf({ ...POSTS, indexes }).slice(5)).toEqual([
      { status: 1, publishedAt: -1, _id: -1 },
      { tags: 1, _id: 1 },
      { author: 1, _id: -1 },
    ]);
  });

  it('adds nothing twice when sortable, indexes and the default overlap, in either direction', () => {
    const indexes: CollectionConfig['indexes'] = [{ fields: { publishedAt: -1 } }, { fields: { createdAt: -1 } }, { fields: { title: 1, id: 1 } }];
    expect(keysOf({ ...POSTS, sortable: ['publishedAt', 'title'], indexes }).slice(5)).toEqual([
      { publishedAt: 1, _id: 1 },
      { title: 1, _id: 1 },
    ]);
  });

  it('a global gets only its field indexes', () => {
    const global = { ...describeCollection({ slug: 'site', fields: { code: { type: 'text', unique: true } } }), isGlobal: true };
    expect(collectionIndexes(global).map((spec) => spec.keys)).toEqual([{ _id: 1 }, { code: 1 }]);
  });
});

describe('unindexedSorts and the start-up warning', () => {
  const ADVICE =
    'Declare `sortable` on a collection with the fields clients sort on, to index them and refuse the rest (`sortable: []` allows ' +
    'only createdAt and id), or turn this off with `warnings: { unindexedSorts: false }`.';

  it('without sortable: every field clients may sort on that no index serves, in field order', () => {
    const posts = describeCollection(POSTS);
    // id and createdAt have indexes; a unique (sparse) index and a single-key index do not serve a sort.
    expect(unindexedSorts(posts)).toEqual(['updatedAt', 'title', 'slug', 'views', 'publishedAt', 'status', 'author']);
    expect(sortIndexWarning([posts])).toBe(
      'content-router: no index serves these sorts, so such lists sort in memory and deeper pages read more records:\n' +
        '  - posts: updatedAt, title, slug, views, publishedAt, status, author\n' +
        ADVICE,
    );
  });

  it('lists every collection in one message, one short line each, leaving out those with nothing to say', () => {
    const notes = describeCollection({ slug: 'notes', fields: { body: { type: 'text' } } });
    const quiet = describeCollection({ ...POSTS, slug: 'quiet', sortable: [] });
    expect(sortIndexWarning([describeCollection(POSTS), quiet, notes])).toBe(
      'content-router: no index serves these sorts, so such lists sort in memory and deeper pages read more records:\n' +
        '  - posts: updatedAt, title, slug, views, publishedAt, status, author\n' +
        '  - notes: updatedAt, body\n' +
        ADVICE,
    );
  });

  it('a declared index counts, soft-deleted collections included', () => {
    const indexes: CollectionConfig['indexes'] = [{ fields: { deletedAt: 1, title: -1 } }, { fields: { views: 1 } }];
    const posts = describeCollection({ ...POSTS, softDelete: true, indexes });
    expect(unindexedSorts(posts)).toEqual(['updatedAt', 'deletedAt', 'slug', 'publishedAt', 'status', 'author']);
  });

  it('with sortable: nothing to warn about, since every allowed sort gets its index', () => {
    for (const softDelete of [false, true]) {
      const posts = describeCollection({ ...POSTS, softDelete, sortable: ['publishedAt', 'title', 'updatedAt', 'status', 'author', 'id'] });
      expect(unindexedSorts(posts)).toEqual([]);
      expect(sortIndexWarning([posts])).toBeUndefined();
      expect(sortIndexWarning([posts, describeCollection({ ...POSTS, softDelete, sortable: [] })])).toBeUndefined();
    }
    expect(sortIndexWarning([])).toBeUndefined();
  });

  it('checks the allowed sorts against the indexes it is given', () => {
    const posts = describeCollection({ ...POSTS, sortable: ['publishedAt'] });
    expect(unindexedSorts(posts, [index({ _id: 1 })])).toEqual(['publishedAt', 'createdAt']);
    expect(sortIndexWarning([posts])).toBeUndefined();
  });
});
