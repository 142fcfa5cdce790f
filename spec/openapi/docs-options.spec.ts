// The `docs` option: validated with the rest of the config (problems named by path) and resolved once.
import { ConfigError, contentRouter } from '../../lib';
import type { ContentConfig } from '../../lib';
import { resolveDocsOptions, validateDocsOptions } from '../../lib/openapi/docs-options';

const db = { uri: 'mongodb://127.0.0.1:1/never-used' };

describe('validateDocsOptions', () => {
  it.each([undefined, false, {}, { public: true }, { public: false }])('accepts %p', (docs) => {
    expect(validateDocsOptions({ db, docs } as ContentConfig)).toEqual([]);
  });

  it.each<[string, unknown, string]>([
    ['a string', 'yes', 'docs: must be true, false or an object'],
    ['an array', [], 'docs: must be true, false or an object'],
    ['an unknown key', { pubic: true }, 'docs.pubic: unknown option'],
    ['a non-boolean public', { public: 'no' }, 'docs.public: must be a boolean'],
  ])('reports %s', (_name, docs, expected) => {
    const problems = validateDocsOptions({ db, docs } as ContentConfig);
    expect(problems).toEqual([expect.stringContaining(expected)]);
  });

  it('is part of contentRouter(): a bad docs option is a ConfigError naming its path', () => {
    expect(() => contentRouter({ db, docs: { public: 1, title: 'x' } as never })).toThrow(ConfigError);
    try {
      contentRouter({ db, docs: { public: 1, title: 'x' } as never });
    } catch (error) {
      expect((error as ConfigError).problems).toEqual(expect.arrayContaining(['docs.public: must be a boolean', 'docs.title: unknown option']));
    }
  });
});

describe('resolveDocsOptions', () => {
  it('defaults to on and public', () => {
    expect(resolveDocsOptions(undefined)).toEqual({ enabled: true, public: true });
    expect(resolveDocsOptions({})).toEqual({ enabled: true, public: true });
  });
  it('false turns it off; public: false needs a caller', () => {
    expect(resolveDocsOptions(false)).toEqual({ enabled: false, public: false });
    expect(resolveDocsOptions({ public: false })).toEqual({ enabled: true, public: false });
  });
});
