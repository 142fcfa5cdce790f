// Config validation: one ConfigError naming every problem by its path.
import mongoose from 'mongoose';
import { ConfigError, contentRouter } from '../../lib';
import type { ContentConfig } from '../../lib';
import { resolveConfig } from '../../lib/config/resolve-config';
import { validateConfig } from '../../lib/config/validate-config';
import { parseCacheOptions } from '../../lib/cache/cache-options';

const db = { uri: 'mongodb://127.0.0.1:1/never-used' };

describe('validateConfig', () => {
  it('accepts a complete, valid config', () => {
    const config: ContentConfig = {
      db,
      collections: [
        { slug: 'authors', fields: { name: { type: 'text', required: true } } },
        {
          slug: 'posts',
          fields: {
            title: { type: 'string' },
            status: { type: 'select', options: ['draft', 'published'], default: 'draft' },
            author: { type: 'relationship', relationTo: 'authors' },
            tags: { type: 'array', of: 'text' },
          },
          search: ['title'],
          pagination: { defaultLimit: 5, maxLimit: 50 },
        },
      ],
      globals: [{ slug: 'site', fields: { title: { type: 'text' } } }],
      warnings: { unindexedSorts: false },
    };
    expect(validateConfig(config)).toEqual([]);
  });

  it.each<[string, Partial<ContentConfig>, string]>([
    ['missing db', { db: undefined as never }, 'db: required'],
    ['unknown relation target', { collections: [{ slug: 'posts', fields: { author: { type: 'relationship', relationTo: 'peoples' } } }] }, 'collections[0].fields.author.relationTo: unknown collection "peoples"'],
    ['unknown field type', { collections: [{ slug: 'posts', fields: { x: { type: 'float' as never } } }] }, 'collections[0].fields.x.type: unknown field type "float"'],
    ['select without options', { collections: [{ slug: 'posts', fields: { s: { type: 'select' } } }] }, 'collections[0].fields.s.options'],
    ['select default not an option', { collections: [{ slug: 'posts', fields: { s: { type: 'select', options: ['a'], default: 'b' } } }] }, 'collections[0].fields.s.default: "b" is not one of the options'],
    ['reserved slug', { collections: [{ slug: 'globals', fields: {} }] }, 'collections[0].slug: "globals" is reserved'],
    ['bad slug', { collections: [{ slug: 'Bad Slug', fields: {} }] }, 'collections[0].slug: must match'],
    ['duplicate slug', { collections: [{ slug: 'a', fields: {} }, { slug: 'a', fields: {} }] }, 'collections[1].slug: duplicate slug "a"'],
    ['system field name', { collections: [{ slug: 'a', fields: { createdAt: { type: 'date' } } }] }, 'collections[0].fields.createdAt: "createdAt" is not a valid field name'],
    ['prototype field name', { collections: [{ slug: 'a', fields: JSON.parse('{"__proto__": {"type": "text"}}') }] }, 'is not a valid field name'],
    ['access not a function', { collections: [{ slug: 'a', fields: {}, access: { read: true as never } }] }, 'collections[0].access.read: must be a function'],
    ['unknown access op', { collections: [{ slug: 'a', fields: {}, access: { list: () => true } as never }] }, 'collections[0].access.list: unknown access operation'],
    ['an unknown top-level option', { colections: [] } as never, 'colections: unknown option'],
    ['an unknown collection option', { collections: [{ slug: 'a', fields: {}, softdelete: true } as never] }, 'collections[0].softdelete: unknown option'],
    ['an option of another field type', { collections: [{ slug: 'a', fields: { t: { type: 'text', options: ['x'] } as never } }] }, 'collections[0].fields.t.options: unknown option'],
    ['a misspelt field option', { collections: [{ slug: 'a', fields: { t: { type: 'text', requried: true } as never } }] }, 'collections[0].fields.t.requried: unknown option'],
    ['a body limit the body parser cannot read', { core: { api: { bodyLimit: 'lots' } } }, 'core.api.bodyLimit: must be a size'],
    ['an unknown core.api option', { core: { api: { prefx: '/x' } as never } }, 'core.api.prefx: unknown option'],
    ['an unknown global option', { globals: [{ slug: 'site', fields: {}, cache: { ttl: 1 } } as never] }, 'globals[0].cache: unknown option'],
    ['an unknown pagination option', { collections: [{ slug: 'a', fields: {}, pagination: { max: 5 } as never }] }, 'collections[0].pagination.max: unknown option'],
    ['both connection and uri', { db: { uri: 'mongodb://x', connection: {} } as never }, 'db: give either connection or uri'],
    ['a non-boolean flag', { collections: [{ slug: 'a', fields: { t: { type: 'text', hidden: 'yes' } as never } }] }, 'collections[0].fields.t.hidden: must be a boolean'],
    ['a logger without error', { logger: { warn: () => undefined } as never }, 'logger: must be an object'],
    ['warnings that are not an object', { warnings: false as never }, 'warnings: must be an object { unindexedSorts?: boolean }'],
    ['a warning switch that is not a boolean', { warnings: { unindexedSorts: 'no' as never } }, 'warnings.unindexedSorts: must be a boolean'],
    ['an unknown warning', { warnings: { unindexedSort: false } as never }, 'warnings.unindexedSort: unknown option'],
    ['default above max', { collections: [{ slug: 'a', fields: {}, pagination: { defaultLimit: 50, maxLimit: 10 } }] }, 'collections[0].pagination.defaultLimit: must not exceed maxLimit'],
    ['search on hidden', { collections: [{ slug: 'a', fields: { s: { type: 'text', hidden: true } }, search: ['s'] }] }, 'collections[0].search: hidden field "s"'],
    ['bad prefix', { core: { api: { prefix: 'api' } } }, 'core.api.prefix'],
    ['bad list format', { core: { api: { listFormat: 'items' as never } } }, 'core.api.listFormat'],
    ['global relation target', { globals: [{ slug: 'site', fields: { hero: { type: 'relationship', relationTo: 'nope' } } }] }, 'globals[0].fields.hero.relationTo: unknown collection "nope"'],
  ])('reports %s', (_name, patch, expected) => {
    const problems = validateConfig({ db, ...patch } as ContentConfig);
    expect(problems.some((p) => p.includes(expected))).toBe(true);
  });

  describe('relation-filter cost limits (core.api)', () => {
    const problemsOf = (api: Record<string, unknown>) => validateConfig({ db, core: { api } } as ContentConfig);

    it('accepts integers in range, 0 relation conditions included', () => {
      expect(problemsOf({ maxRelationConditions: 0, maxRelationDepth: 1, maxRelationIds: 1 })).toEqual([]);
      expect(problemsOf({ maxRelationConditions: 50, maxRelationDepth: 10, maxRelationIds: 10_000 })).toEqual([]);
      expect(problemsOf({ maxRelationConditions: 1, maxRelationIds: 500_000 })).toEqual([]);
    });

    it('resolves to 10 conditions, 3 hops and 10,000 ids unless configured', () => {
      expect(resolveConfig({ db }).query).toMatchObject({ maxRelationConditions: 10, maxRelationDepth: 3, maxRelationIds: 10_000 });
      const api = { maxRelationConditions: 0, maxRelationDepth: 1, maxRelationIds: 50 };
      expect(resolveConfig({ db, core: { api } }).query).toMatchObject(api);
    });

    it.each<[string, Record<string, unknown>, string]>([
      ['negative conditions', { maxRelationConditions: -1 }, 'core.api.maxRelationConditions: must be an integer from 0 (no relation filters) to 200'],
      ['fractional conditions', { maxRelationConditions: 2.5 }, 'core.api.maxRelationConditions: must be an integer from 0 (no relation filters) to 200'],
      ['text conditions', { maxRelationConditions: '10' }, 'core.api.maxRelationConditions: must be an integer from 0 (no relation filters) to 200'],
      ['depth 0', { maxRelationDepth: 0 }, 'core.api.maxRelationDepth: must be an integer from 1 to 10'],
      ['depth 11', { maxRelationDepth: 11 }, 'core.api.maxRelationDepth: must be an integer from 1 to 10'],
      ['ids 0', { maxRelationIds: 0 }, 'core.api.maxRelationIds: must be an integer from 1 to 500000'],
      ['ids Infinity', { maxRelationIds: Infinity }, 'core.api.maxRelationIds: must be an integer from 1 to 500000'],
      [
        'ids times conditions over 500000',
        { maxRelationIds: 100_000 },
        'core.api.maxRelationIds: times maxRelationConditions must be at most 500000 (the ids of one request must fit in a MongoDB command); got 1000000',
      ],
    ])('reports %s', (_name, api, expected) => {
      expect(problemsOf(api)).toEqual([expected]);
    });
  });

  it('throws one ConfigError listing every problem, before touching any database', () => {
    const before = mongoose.connections.length;
    let error: unknown;
    try {
      contentRouter({
        db,
        collections: [
          { slug: 'posts', fields: { author: { type: 'relationship', relationTo: 'peoples' }, n: { type: 'nope' as never } } },
        ],
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems).toEqual([
      'collections[0].fields.author.relationTo: unknown collection "peoples"',
      'collections[0].fields.n.type: unknown field type "nope"',
    ]);
    expect((error as Error).message).toContain('unknown collection "peoples"');
    expect(mongoose.connections.length).toBe(before);
  });
});

describe('the cache option of a collection', () => {
  it('accepts { ttl } and { ttl, max }', () => {
    const config = { db, collections: [{ slug: 'a', fields: {}, cache: { ttl: 30 } }, { slug: 'b', fields: {}, cache: { ttl: 0.5, max: 10 } }] };
    expect(validateConfig(config, [parseCacheOptions])).toEqual([]);
  });

  it.each<[string, Partial<ContentConfig>, string]>([
    ['a cache without ttl', { collections: [{ slug: 'a', fields: {}, cache: {} as never }] }, 'collections[0].cache.ttl: must be a number of seconds greater than 0'],
    ['a cache ttl of 0', { collections: [{ slug: 'a', fields: {}, cache: { ttl: 0 } }] }, 'collections[0].cache.ttl: must be a number of seconds greater than 0'],
    ['a cache ttl that is not a number', { collections: [{ slug: 'a', fields: {}, cache: { ttl: '60' as never } }] }, 'collections[0].cache.ttl'],
    ['a fractional cache max', { collections: [{ slug: 'a', fields: {}, cache: { ttl: 1, max: 1.5 } }] }, 'collections[0].cache.max: must be an integer of at least 1'],
    ['a cache max of 0', { collections: [{ slug: 'a', fields: {}, cache: { ttl: 1, max: 0 } }] }, 'collections[0].cache.max: must be an integer of at least 1'],
    ['an unknown cache option', { collections: [{ slug: 'a', fields: {}, cache: { ttl: 1, maxKeys: 5 } as never }] }, 'collections[0].cache.maxKeys: unknown option'],
    ['a cache that is not an object', { collections: [{ slug: 'a', fields: {}, cache: true as never }] }, 'collections[0].cache: must be an object'],
  ])('reports %s', (_name, patch, expected) => {
    const problems = validateConfig({ db, ...patch } as ContentConfig, [parseCacheOptions]);
    expect(problems.some((p) => p.includes(expected))).toBe(true);
  });

  it('is refused by contentRouter with a ConfigError', () => {
    expect(() => contentRouter({ db, collections: [{ slug: 'a', fields: {}, cache: { ttl: -1 } }] })).toThrow(ConfigError);
  });
});
