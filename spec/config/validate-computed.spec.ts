// `computed` in the config: the keys afterRead hooks add, each with a name no stored field has and a type the
// document can say; anything else is a ConfigError naming its path.
import { ConfigError, contentRouter } from '../../lib';
import type { CollectionConfig, ContentConfig } from '../../lib';
import { validateConfig } from '../../lib/config/validate-config';

const db = { uri: 'mongodb://127.0.0.1:1/never-used' };
const afterRead = { afterRead: [({ doc }: { doc: object }) => doc] };

const problemsOf = (collection: Partial<CollectionConfig>, global?: object) =>
  validateConfig({
    db,
    collections: [{ slug: 'posts', fields: { title: { type: 'text' } }, hooks: afterRead, ...collection } as CollectionConfig],
    ...(global && { globals: [{ slug: 'site', fields: { title: { type: 'text' } }, ...global }] }),
  } as ContentConfig);

describe('computed keys in the config', () => {
  it('accepts every type the document can say, on collections and globals', () => {
    expect(
      problemsOf(
        {
          computed: {
            words: { type: 'number', required: true, description: 'Words in the body' },
            tone: { type: 'select', options: ['calm', 'loud'], hasMany: true },
            tags: { type: 'array', of: 'text' },
            extra: { type: 'json' },
            seen: { type: 'datetime' },
          },
        },
        { hooks: afterRead, computed: { readAt: { type: 'date' } } },
      ),
    ).toEqual([]);
  });

  it.each<[string, Partial<CollectionConfig>, string]>([
    ['a stored field', { computed: { title: { type: 'text' } } }, 'collections[0].computed.title: "title" is a stored field'],
    ['a system field', { computed: { id: { type: 'text' } } }, 'collections[0].computed.id: "id" is not a valid key name'],
    ['an auth field', { auth: true, computed: { email: { type: 'text' } } }, 'collections[0].computed.email: "email" is a stored field'],
    ['a relationship', { computed: { author: { type: 'relationship' as never } } }, 'collections[0].computed.author.type: must be one of'],
    ['an unknown option', { computed: { words: { type: 'number', min: 0 } as never } }, 'collections[0].computed.words.min: unknown option'],
    ['a select without options', { computed: { tone: { type: 'select' } } }, 'collections[0].computed.tone.options: a select key needs'],
    ['a non-boolean required', { computed: { words: { type: 'number', required: 'yes' as never } } }, 'collections[0].computed.words.required: must be a boolean'],
    ['not an object', { computed: [] as never }, 'collections[0].computed: must be an object'],
    ['no afterRead hook', { hooks: {}, computed: { words: { type: 'number' } } }, 'collections[0].computed: declares keys, but no afterRead hook adds them'],
  ])('refuses %s', (_name, collection, expected) => {
    expect(problemsOf(collection)).toEqual([expect.stringContaining(expected)]);
  });

  it('a global without an afterRead hook is refused too, and contentRouter() throws a ConfigError naming the path', () => {
    const config = { db, globals: [{ slug: 'site', fields: {}, computed: { readAt: { type: 'date' } } }] } as ContentConfig;
    expect(() => contentRouter(config)).toThrow(ConfigError);
    expect(validateConfig(config)).toEqual([expect.stringContaining('globals[0].computed: declares keys, but no afterRead hook')]);
  });
});
