// Each feature's options are checked and resolved in one pass: its parser runs once per router, its problems
// join the core's in the one ConfigError (every one listed, by path), and its resolved options are kept in
// the resolved config under the feature's name, for its create().
import { ConfigError, type ContentConfig } from '../../lib';
import { type OptionsOwner, resolveConfig } from '../../lib/config/resolve-config';

const db = { uri: 'mongodb://127.0.0.1:1/never-used' };

function counted(name: string, answer: (raw: ContentConfig) => { problems: string[]; options: unknown }): OptionsOwner & { calls: number } {
  const owner = {
    name,
    calls: 0,
    options: (raw: ContentConfig) => {
      owner.calls += 1;
      return answer(raw);
    },
  };
  return owner;
}

describe('the options pass', () => {
  it('parses each feature once and keeps its options by name', () => {
    const a = counted('a', () => ({ problems: [], options: { limit: 5 } }));
    const b = counted('b', (raw) => ({ problems: [], options: raw.realtime === true }));
    const resolved = resolveConfig({ db, realtime: true }, [a, b, { name: 'none' }]);
    expect([a.calls, b.calls]).toEqual([1, 1]);
    expect(resolved.features.get('a')).toEqual({ limit: 5 });
    expect(resolved.features.get('b')).toBe(true);
    expect(resolved.features.has('none')).toBe(false);
  });

  it('lists the core problems and every feature’s in one ConfigError, in feature order', () => {
    const a = counted('a', () => ({ problems: ['a.x: must be a number'], options: undefined }));
    const b = counted('b', () => ({ problems: ['b.y: unknown option', 'b.z: must be a boolean'], options: undefined }));
    let error: unknown;
    try {
      resolveConfig({ db, core: { api: { maxDepth: 99 } } }, [a, b]);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual(['core.api.maxDepth: must be an integer from 0 to 10', 'a.x: must be a number', 'b.y: unknown option', 'b.z: must be a boolean']);
    expect([a.calls, b.calls]).toEqual([1, 1]);
  });

  it('does not parse features over collections that are not a list (the core says so)', () => {
    const a = counted('a', () => ({ problems: [], options: undefined }));
    expect(() => resolveConfig({ db, collections: 'posts' } as unknown as ContentConfig, [a])).toThrow('collections: must be an array');
    expect(a.calls).toBe(0);
  });

  it('resolves what the core shares with features once: the clock, trusted origins, the client key, the 401 challenge', () => {
    const clock = { now: () => new Date('2030-01-01T00:00:00Z') };
    const keyBy = () => 'k';
    const resolved = resolveConfig({ db, clock, security: { trustedOrigins: ['https://admin.example.com'], rateLimit: { keyBy } } });
    expect(resolved.clock).toBe(clock);
    expect([...resolved.trustedOrigins]).toEqual(['https://admin.example.com']);
    expect(resolved.clientKeyBy).toBe(keyBy);
    expect(resolved.authChallenge).toBeUndefined();
    expect(resolveConfig({ db }).clock.now()).toBeInstanceOf(Date);
    expect(resolved).not.toHaveProperty('source');
  });
});

describe('every feature of the router over a broken config', () => {
  it('still answers the one ConfigError: no parser resolves over what the core refused', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the factory, only for this test
    const { contentRouter } = require('../../lib') as typeof import('../../lib');
    const config = {
      db,
      auth: { jwtSecret: 'x'.repeat(32) },
      collections: [null, { slug: 'users', auth: true, cache: { ttl: 5 }, fields: {} }, 7],
      globals: [null],
      realtime: true,
      uploads: {},
      docs: {},
    } as unknown as ContentConfig;
    expect(() => contentRouter(config)).toThrow(ConfigError);
  });
});
