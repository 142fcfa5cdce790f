// Rate-limit options: every malformed or unknown option is a ConfigError naming its path; the
// defaults resolve as documented.
import { ConfigError, type ContentConfig, contentRouter } from '../../lib';
import { validateConfig } from '../../lib/config/validate-config';
import { parseRateLimitOptions } from '../../lib/rate-limit/rate-limit-options';

const resolveRateLimitOptions = (config: ContentConfig) => parseRateLimitOptions(config).options;

const db = { uri: 'mongodb://127.0.0.1:1/never-used' };

function problems(security: unknown): string[] {
  return validateConfig({ db, collections: [], security } as ContentConfig, [parseRateLimitOptions]);
}

describe('rate-limit config', () => {
  it('accepts a complete config and an empty one', () => {
    expect(problems({ rateLimit: { windowMs: 1000, max: 5, store: 'mongo', keyBy: () => 'k', auth: { windowMs: 60000, max: 3, maxPerClient: 9 } } })).toEqual([]);
    expect(problems({ rateLimit: {} })).toEqual([]);
    expect(problems({})).toEqual([]);
  });

  it.each<[string, unknown, string]>([
    ['security not an object', true, 'security: must be an object'],
    ['an unknown security option', { rateLimits: {} }, 'security.rateLimits: unknown option'],
    ['rateLimit not an object', { rateLimit: 10 }, 'security.rateLimit: must be an object'],
    ['an unknown rateLimit option', { rateLimit: { limit: 10 } }, 'security.rateLimit.limit: unknown option'],
    ['max zero', { rateLimit: { max: 0 } }, 'security.rateLimit.max: must be an integer >= 1'],
    ['max fractional', { rateLimit: { max: 2.5 } }, 'security.rateLimit.max: must be an integer >= 1'],
    ['max a string', { rateLimit: { max: '10' } }, 'security.rateLimit.max: must be an integer >= 1'],
    ['windowMs negative', { rateLimit: { windowMs: -1 } }, 'security.rateLimit.windowMs: must be an integer number of milliseconds'],
    ['windowMs too long for a timer', { rateLimit: { windowMs: 2 ** 31 } }, 'security.rateLimit.windowMs: must be an integer number of milliseconds from 1 to 2147483647'],
    ['an unknown store', { rateLimit: { store: 'redis' } }, 'security.rateLimit.store: must be "memory" or "mongo"'],
    ['keyBy not a function', { rateLimit: { keyBy: 'ip' } }, 'security.rateLimit.keyBy: must be a function'],
    ['auth not an object', { rateLimit: { auth: 5 } }, 'security.rateLimit.auth: must be an object'],
    ['an unknown auth option', { rateLimit: { auth: { maxPerIp: 5 } } }, 'security.rateLimit.auth.maxPerIp: unknown option'],
    ['auth.max zero', { rateLimit: { auth: { max: 0 } } }, 'security.rateLimit.auth.max: must be an integer >= 1'],
    ['auth.maxPerClient NaN', { rateLimit: { auth: { maxPerClient: Number.NaN } } }, 'security.rateLimit.auth.maxPerClient: must be an integer >= 1'],
    ['auth.windowMs fractional', { rateLimit: { auth: { windowMs: 1.5 } } }, 'security.rateLimit.auth.windowMs: must be an integer number of milliseconds'],
  ])('%s', (_name, security, problem) => {
    expect(problems(security)).toEqual([expect.stringContaining(problem)]);
  });

  it('reports every problem at once through contentRouter()', () => {
    let error: unknown;
    try {
      contentRouter({ db, collections: [], security: { rateLimit: { max: 0, store: 'redis' as never, keyBy: 1 as never } } });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      'security.rateLimit.max: must be an integer >= 1',
      'security.rateLimit.store: must be "memory" or "mongo"',
      'security.rateLimit.keyBy: must be a function (req) => string',
    ]);
  });

  it('resolves the documented defaults', () => {
    expect(resolveRateLimitOptions({ db, security: {} })).toBeUndefined();
    expect(resolveRateLimitOptions({ db, security: { rateLimit: {} } })).toEqual({
      windowMs: 60_000,
      max: 100,
      store: 'memory',
      auth: { windowMs: 900_000, max: 10, maxPerClient: 50 },
    });
    expect(resolveRateLimitOptions({ db, security: { rateLimit: { auth: { max: 4 } } } })?.auth.maxPerClient).toBe(20);
  });
});
