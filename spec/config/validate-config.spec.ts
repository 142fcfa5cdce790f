// Config validation: one ConfigError naming every problem by its path.
import mongoose from 'mongoose';
import { ConfigError, contentRouter } from '../../lib';
import type { ContentConfig } from '../../lib';
import { validateConfig } from '../../lib/config/validate-config';

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
    ['response caching, not built yet', { collections: [{ slug: 'a', fields: {}, cache: { ttl: 30 } }] }, 'collections[0].cache: not supported yet'],
    ['uploads, not built yet', { uploads: { bucket: 'files' } }, 'uploads: not supported yet'],
    ['rate limiting, not built yet', { security: { rateLimit: { max: 10 } } }, 'security: not supported yet'],
    ['realtime, not built yet', { realtime: true }, 'realtime: not supported yet'],
    ['custom endpoints, not built yet', { endpoints: [() => undefined] }, 'endpoints: not supported yet'],
    ['an unknown top-level option', { colections: [] } as never, 'colections: unknown option'],
    ['an unknown collection option', { collections: [{ slug: 'a', fields: {}, softdelete: true } as never] }, 'collections[0].softdelete: unknown option'],
    ['an option of another field type', { collections: [{ slug: 'a', fields: { t: { type: 'text', options: ['x'] } as never } }] }, 'collections[0].fields.t.options: unknown option'],
    ['a misspelt field option', { collections: [{ slug: 'a', fields: { t: { type: 'text', requried: true } as never } }] }, 'collections[0].fields.t.requried: unknown option'],
    ['an unknown core.api option', { core: { api: { prefx: '/x' } as never } }, 'core.api.prefx: unknown option'],
    ['an unknown global option', { globals: [{ slug: 'site', fields: {}, cache: { ttl: 1 } } as never] }, 'globals[0].cache: unknown option'],
    ['an unknown pagination option', { collections: [{ slug: 'a', fields: {}, pagination: { max: 5 } as never }] }, 'collections[0].pagination.max: unknown option'],
    ['both connection and uri', { db: { uri: 'mongodb://x', connection: {} } as never }, 'db: give either connection or uri'],
    ['a non-boolean flag', { collections: [{ slug: 'a', fields: { t: { type: 'text', hidden: 'yes' } as never } }] }, 'collections[0].fields.t.hidden: must be a boolean'],
    ['a logger without error', { logger: { warn: () => undefined } as never }, 'logger: must be an object'],
    ['default above max', { collections: [{ slug: 'a', fields: {}, pagination: { defaultLimit: 50, maxLimit: 10 } }] }, 'collections[0].pagination.defaultLimit: must not exceed maxLimit'],
    ['search on hidden', { collections: [{ slug: 'a', fields: { s: { type: 'text', hidden: true } }, search: ['s'] }] }, 'collections[0].search: hidden field "s"'],
    ['bad prefix', { core: { api: { prefix: 'api' } } }, 'core.api.prefix'],
    ['bad list format', { core: { api: { listFormat: 'items' as never } } }, 'core.api.listFormat'],
    ['global relation target', { globals: [{ slug: 'site', fields: { hero: { type: 'relationship', relationTo: 'nope' } } }] }, 'globals[0].fields.hero.relationTo: unknown collection "nope"'],
  ])('reports %s', (_name, patch, expected) => {
    const problems = validateConfig({ db, ...patch } as ContentConfig);
    expect(problems.some((p) => p.includes(expected))).toBe(true);
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
