// Hook options in the config: only the hook lists a collection, a global or a field takes, each an array of
// functions; anything else (a typo such as `beforeCreate`, a lone function) is a ConfigError naming its path.
import { ConfigError, contentRouter } from '../../lib';
import type { ContentConfig } from '../../lib';
import { validateConfig } from '../../lib/config/validate-config';

const db = { uri: 'mongodb://127.0.0.1:1/never-used' };
const noop = () => undefined;

describe('hook options', () => {
  it('accepts every hook list where it belongs', () => {
    const config: ContentConfig = {
      db,
      collections: [
        {
          slug: 'posts',
          fields: { title: { type: 'text', hooks: { beforeChange: [noop], afterRead: [noop, noop] } } },
          hooks: {
            beforeValidate: [noop],
            beforeChange: [noop],
            afterChange: [noop],
            beforeRead: [noop],
            afterRead: [noop],
            beforeDelete: [noop],
            afterDelete: [noop],
            afterError: [noop],
          },
        },
      ],
      globals: [{ slug: 'site', fields: { name: { type: 'text', hooks: { afterRead: [noop] } } }, hooks: { beforeChange: [noop], afterChange: [noop], afterRead: [noop] } }],
      warnings: { unindexedSorts: false },
    };
    expect(validateConfig(config)).toEqual([]);
  });

  it.each<[string, Partial<ContentConfig>, string]>([
    ['an unknown collection hook', { collections: [{ slug: 'a', fields: {}, hooks: { beforeCreate: [noop] } as never }] }, 'collections[0].hooks.beforeCreate: unknown hook (expected beforeValidate, beforeChange,'],
    ['a hook that is not in a list', { collections: [{ slug: 'a', fields: {}, hooks: { afterRead: noop as never } }] }, 'collections[0].hooks.afterRead: must be an array of functions'],
    ['a list item that is not a function', { collections: [{ slug: 'a', fields: {}, hooks: { beforeChange: [noop, 'slugify' as never] } }] }, 'collections[0].hooks.beforeChange[1]: must be a function'],
    ['hooks that are not an object', { collections: [{ slug: 'a', fields: {}, hooks: [noop] as never }] }, 'collections[0].hooks: must be an object of hook lists'],
    ['a collection hook on a global', { globals: [{ slug: 'site', fields: {}, hooks: { beforeDelete: [noop] } as never }] }, 'globals[0].hooks.beforeDelete: unknown hook (expected beforeChange, afterChange, afterRead)'],
    ['beforeRead on a global', { globals: [{ slug: 'site', fields: {}, hooks: { beforeRead: [noop] } as never }] }, 'globals[0].hooks.beforeRead: unknown hook'],
    ['a collection hook on a field', { collections: [{ slug: 'a', fields: { t: { type: 'text', hooks: { afterChange: [noop] } as never } } }] }, 'collections[0].fields.t.hooks.afterChange: unknown hook (expected beforeChange, afterRead)'],
    ['a field hook that is not a function', { globals: [{ slug: 'site', fields: { t: { type: 'text', hooks: { afterRead: [42 as never] } } } }] }, 'globals[0].fields.t.hooks.afterRead[0]: must be a function'],
  ])('refuses %s', (_name, partial, message) => {
    const config = { db, collections: [], ...partial } as ContentConfig;
    expect(validateConfig(config).join('\n')).toContain(message);
    expect(() => contentRouter(config)).toThrow(ConfigError);
  });
});
