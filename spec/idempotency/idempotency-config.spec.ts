// The `idempotency` option: a bad TTL, answer size or key count, or an unknown key, is a ConfigError naming
// its path, through contentRouter() too; the defaults (24 h, a lease past the request deadline, 1 MiB
// answers, 1000 keys per caller) resolve as documented.
import { ConfigError, type ContentConfig, contentRouter } from '../../lib';
import { validateConfig } from '../../lib/config/validate-config';
import { leaseFor, parseIdempotencyOptions } from '../../lib/idempotency/idempotency-options';

/** The options as the feature runs on them: parsed, with the lease that follows from the request deadline. */
function resolveIdempotencyOptions(config: ContentConfig, requestTimeoutMS: number | false) {
  const { options } = parseIdempotencyOptions(config);
  return options && { ...options, leaseMs: leaseFor(requestTimeoutMS) };
}

const db = { uri: 'mongodb://127.0.0.1:1/never-used' };

function problems(idempotency: unknown): string[] {
  return validateConfig({ db, collections: [], idempotency } as ContentConfig, [parseIdempotencyOptions]);
}

describe('idempotency config', () => {
  it.each<[string, unknown]>([
    ['absent', undefined],
    ['true', true],
    ['false', false],
    ['empty', {}],
    ['a duration', { ttl: '30m' }],
    ['seconds', { ttl: 3600 }],
    ['the shortest', { ttl: '1s' }],
    ['the longest', { ttl: '365d' }],
    ['no answers kept', { maxAnswerBytes: 0 }],
    ['the largest answer a row holds', { maxAnswerBytes: 15 * 1024 * 1024 }],
    ['one key per caller', { maxKeysPerCaller: 1 }],
    ['every option', { ttl: '1h', maxAnswerBytes: 65_536, maxKeysPerCaller: 100 }],
  ])('accepts %s', (_name, idempotency) => {
    expect(problems(idempotency)).toEqual([]);
  });

  it.each<[string, unknown, string]>([
    ['not an object', 'on', 'idempotency: must be false, true or an object { ttl, maxAnswerBytes, maxKeysPerCaller }'],
    ['an array', [], 'idempotency: must be false, true or an object { ttl, maxAnswerBytes, maxKeysPerCaller }'],
    ['an unknown option', { ttl: '1h', lease: 5 }, 'idempotency.lease: unknown option'],
    ['a ttl without unit', { ttl: '24' }, 'idempotency.ttl: must be a duration'],
    ['a ttl in words', { ttl: '1 day' }, 'idempotency.ttl: must be a duration'],
    ['a ttl of zero', { ttl: 0 }, 'idempotency.ttl: must be a duration'],
    ['a negative ttl', { ttl: -60 }, 'idempotency.ttl: must be a duration'],
    ['a ttl under a second', { ttl: '500ms' }, 'idempotency.ttl: must be a duration from 1 s to 365 days'],
    ['a ttl over a year', { ttl: '366d' }, 'idempotency.ttl: must be a duration from 1 s to 365 days'],
    ['a ttl of another type', { ttl: true }, 'idempotency.ttl: must be a duration'],
    ['a negative answer size', { maxAnswerBytes: -1 }, 'idempotency.maxAnswerBytes: must be a whole number of bytes from 0'],
    ['a fractional answer size', { maxAnswerBytes: 1.5 }, 'idempotency.maxAnswerBytes: must be a whole number of bytes'],
    ['an answer size in words', { maxAnswerBytes: '64kb' }, 'idempotency.maxAnswerBytes: must be a whole number of bytes'],
    ['an answer larger than a row holds', { maxAnswerBytes: 15 * 1024 * 1024 + 1 }, 'idempotency.maxAnswerBytes: must be a whole number of bytes from 0 (keep no answer, only keys) to 15728640'],
    ['no keys per caller', { maxKeysPerCaller: 0 }, 'idempotency.maxKeysPerCaller: must be a whole number from 1'],
    ['a fractional key count', { maxKeysPerCaller: 2.5 }, 'idempotency.maxKeysPerCaller: must be a whole number from 1'],
    ['a key count as text', { maxKeysPerCaller: '1000' }, 'idempotency.maxKeysPerCaller: must be a whole number from 1'],
  ])('refuses %s', (_name, idempotency, problem) => {
    expect(problems(idempotency)).toEqual([expect.stringContaining(problem)]);
  });

  it('reports its problems through contentRouter(), before any connection', () => {
    let error: unknown;
    try {
      contentRouter({ db, collections: [], idempotency: { ttl: 'soon', keep: true } as never });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      'idempotency.keep: unknown option',
      expect.stringContaining('idempotency.ttl: must be a duration'),
    ]);
  });

  it('resolves the TTL (default 24 h), a lease 5 s past the request deadline (30 s without one), and the bounds (1 MiB, 1000 keys)', () => {
    const bounds = { maxAnswerBytes: 1024 * 1024, maxKeysPerCaller: 1000 };
    expect(resolveIdempotencyOptions({ db }, 30_000)).toEqual({ ttlMs: 24 * 3_600_000, leaseMs: 35_000, ...bounds });
    expect(resolveIdempotencyOptions({ db, idempotency: true }, 1000)).toEqual({ ttlMs: 24 * 3_600_000, leaseMs: 6000, ...bounds });
    expect(resolveIdempotencyOptions({ db, idempotency: { ttl: '2h' } }, false)).toEqual({ ttlMs: 2 * 3_600_000, leaseMs: 35_000, ...bounds });
    expect(resolveIdempotencyOptions({ db, idempotency: { ttl: 90 } }, 10_000)).toEqual({ ttlMs: 90_000, leaseMs: 15_000, ...bounds });
    expect(resolveIdempotencyOptions({ db, idempotency: { maxAnswerBytes: 0, maxKeysPerCaller: 5 } }, 30_000)).toEqual({
      ttlMs: 24 * 3_600_000,
      leaseMs: 35_000,
      maxAnswerBytes: 0,
      maxKeysPerCaller: 5,
    });
    expect(resolveIdempotencyOptions({ db, idempotency: false }, 30_000)).toBeUndefined();
  });
});
