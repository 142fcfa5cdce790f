// `sortable` and `indexes`: every name, direction and duplicate checked, each problem named by its path.
import type { CollectionConfig, ContentConfig } from '../../lib';
import { validateConfig } from '../../lib/config/validate-config';

const db = { uri: 'mongodb://127.0.0.1:1/never-used' };

const posts = (extra: Partial<CollectionConfig>): ContentConfig => ({
  db,
  collections: [
    { slug: 'authors', auth: true, fields: {}, ...(extra.slug === 'authors' ? extra : {}) },
    {
      slug: 'posts',
      softDelete: true,
      fields: {
        title: { type: 'text' },
        body: { type: 'textarea' },
        views: { type: 'number' },
        featured: { type: 'boolean' },
        publishedAt: { type: 'date' },
        status: { type: 'select', options: ['draft', 'published'] },
        author: { type: 'relationship', relationTo: 'authors' },
        cover: { type: 'upload' },
        tags: { type: 'array', of: 'text' },
        topics: { type: 'select', options: ['a', 'b'], hasMany: true },
        editors: { type: 'relationship', relationTo: 'authors', hasMany: true },
        secret: { type: 'text', hidden: true },
        meta: { type: 'json' },
      },
      ...(extra.slug === 'authors' ? {} : extra),
    },
  ],
});

describe('sortable', () => {
  it('accepts visible scalar fields and the system fields', () => {
    const sortable = ['title', 'body', 'views', 'featured', 'publishedAt', 'status', 'author', 'cover', 'createdAt', 'updatedAt', 'id', 'deletedAt'];
    expect(validateConfig(posts({ sortable }))).toEqual([]);
    expect(validateConfig(posts({ sortable: [] }))).toEqual([]);
  });

  it('accepts the visible built-in fields of an auth collection', () => {
    expect(validateConfig(posts({ slug: 'authors', sortable: ['email', 'name', 'role', 'verified'] }))).toEqual([]);
  });

  it.each<[string, unknown, string[]]>([
    ['not an array', 'title', ['collections[1].sortable: must be an array of field names']],
    ['an unknown field', ['title', 'nope'], ['collections[1].sortable[1]: unknown field "nope"']],
    ['a hidden field', ['secret'], ['collections[1].sortable[0]: hidden field "secret" cannot be sorted on']],
    ['a json field', ['meta'], ['collections[1].sortable[0]: json field "meta" cannot be sorted on']],
    ['an array field', ['tags'], ['collections[1].sortable[0]: list field "tags" (array or hasMany) cannot be sorted on']],
    ['a hasMany select', ['topics'], ['collections[1].sortable[0]: list field "topics" (array or hasMany) cannot be sorted on']],
    ['a hasMany relationship', ['editors'], ['collections[1].sortable[0]: list field "editors" (array or hasMany) cannot be sorted on']],
    ['a duplicate', ['title', 'views', 'title'], ['collections[1].sortable[2]: "title" is listed twice']],
    ['a non-string', ['title', 5], ['collections[1].sortable[1]: must be a field name']],
    ['a dotted path', ['author.name'], ['collections[1].sortable[0]: unknown field "author.name"']],
    ['a prototype key', ['toString'], ['collections[1].sortable[0]: unknown field "toString"']],
    ['_id', ['_id'], ['collections[1].sortable[0]: unknown field "_id"']],
  ])('refuses %s', (_name, sortable, problems) => {
    expect(validateConfig(posts({ sortable: sortable as string[] }))).toEqual(problems);
  });

  it('refuses deletedAt where records are never soft-deleted', () => {
    expect(validateConfig(posts({ softDelete: false, sortable: ['deletedAt'] }))).toEqual(['collections[1].sortable[0]: unknown field "deletedAt"']);
  });

  it('refuses the hidden built-in fields of an auth collection', () => {
    expect(validateConfig(posts({ slug: 'authors', sortable: ['password'] }))).toEqual(['collections[0].sortable[0]: hidden field "password" cannot be sorted on']);
  });
});

describe('indexes', () => {
  it('accepts compound indexes on any indexable field, hidden and list fields included', () => {
    const indexes = [
      { fields: { status: 1, publishedAt: -1 } },
      { fields: { tags: 1, createdAt: -1 } },
      { fields: { deletedAt: 1, status: 1, views: -1 } },
      { fields: { secret: 1 } },
      { fields: { author: 1, id: -1 } },
    ] as CollectionConfig['indexes'];
    expect(validateConfig(posts({ indexes }))).toEqual([]);
  });

  it.each<[string, unknown, string[]]>([
    ['not an array', { fields: { title: 1 } }, ['collections[1].indexes: must be an array of { fields: { name: 1 | -1 } }']],
    ['an entry that is not an object', ['title'], ['collections[1].indexes[0]: must be an object { fields }']],
    ['an unknown option', [{ fields: { title: 1 }, unique: true }], ['collections[1].indexes[0].unique: unknown option']],
    ['missing fields', [{}], ['collections[1].indexes[0].fields: must be a non-empty object of field name -> 1 or -1']],
    ['empty fields', [{ fields: {} }], ['collections[1].indexes[0].fields: must be a non-empty object of field name -> 1 or -1']],
    ['fields as an array', [{ fields: ['title'] }], ['collections[1].indexes[0].fields: must be a non-empty object of field name -> 1 or -1']],
    ['an unknown field', [{ fields: { status: 1, nope: -1 } }], ['collections[1].indexes[0].fields.nope: unknown field "nope"']],
    ['a json field', [{ fields: { meta: 1 } }], ['collections[1].indexes[0].fields.meta: json field "meta" cannot be indexed']],
    ['a text direction', [{ fields: { title: 'asc' } }], ['collections[1].indexes[0].fields.title: must be 1 or -1']],
    ['direction 2', [{ fields: { title: 2 } }], ['collections[1].indexes[0].fields.title: must be 1 or -1']],
    ['a text index', [{ fields: { title: 'text' } }], ['collections[1].indexes[0].fields.title: must be 1 or -1']],
    ['two list fields', [{ fields: { tags: 1, topics: 1 } }], ['collections[1].indexes[0].fields: at most one list field (array or hasMany) per index; MongoDB cannot index tags and topics together']],
    ['a duplicate', [{ fields: { status: 1 } }, { fields: { status: 1, id: 1 } }], ['collections[1].indexes[1]: the same index as indexes[0] (an index serves both directions)']],
    ['a reversed duplicate', [{ fields: { status: 1, views: -1 } }, { fields: { status: -1, views: 1 } }], ['collections[1].indexes[1]: the same index as indexes[0] (an index serves both directions)']],
  ])('refuses %s', (_name, indexes, problems) => {
    expect(validateConfig(posts({ indexes: indexes as CollectionConfig['indexes'] }))).toEqual(problems);
  });

  it('refuses more than 31 fields (MongoDB allows 32 keys and the router appends _id)', () => {
    const fields: Record<string, { type: 'number' }> = {};
    const keys: Record<string, 1> = {};
    for (let i = 0; i < 32; i += 1) {
      fields[`f${i}`] = { type: 'number' };
      keys[`f${i}`] = 1;
    }
    const config: ContentConfig = { db, collections: [{ slug: 'wide', fields, indexes: [{ fields: keys }] }] };
    expect(validateConfig(config)).toEqual(['collections[0].indexes[0].fields: at most 31 fields']);
    delete keys.f31;
    expect(validateConfig(config)).toEqual([]);
  });

  it('a broken field config is reported once, as a field problem, never a crash', () => {
    const config: ContentConfig = { db, collections: [{ slug: 'a', fields: { x: null as never }, sortable: ['x'], indexes: [{ fields: { x: 1 } }] }] };
    expect(validateConfig(config)).toEqual([
      'collections[0].fields.x: must be an object with a type',
      'collections[0].sortable[0]: unknown field "x"',
      'collections[0].indexes[0].fields.x: unknown field "x"',
    ]);
  });

  it('reports every problem at once, with the other options', () => {
    const problems = validateConfig(posts({ sortable: ['nope'], indexes: [{ fields: { nope: 1 } }], maxBatchSize: 0 }));
    expect(problems).toEqual([
      'collections[1].maxBatchSize: must be an integer >= 1',
      'collections[1].sortable[0]: unknown field "nope"',
      'collections[1].indexes[0].fields.nope: unknown field "nope"',
    ]);
  });
});
