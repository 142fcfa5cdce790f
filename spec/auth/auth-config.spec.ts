// Auth config: contentRouter() refuses to start without a strong secret or with bad durations,
// policies or hash costs, naming each path; options resolve with their documented defaults.
import mongoose from 'mongoose';
import { ConfigError, type ContentConfig, contentRouter } from '../../lib';
import { resolveAuthOptions } from '../../lib/auth/auth-options';
import { parseAuthOptions } from '../../lib/auth/validate-auth-config';
import { validateConfig } from '../../lib/config/validate-config';

const db = { uri: 'mongodb://127.0.0.1:1/never-used' };
const SECRET = 'x'.repeat(32);
const users = { slug: 'users', auth: true, fields: {} } as const;

function problems(config: Omit<ContentConfig, 'db'>): string[] {
  return validateConfig({ db, ...config } as ContentConfig, [parseAuthOptions]);
}

describe('auth config validation', () => {
  it('accepts a minimal auth config (secret of exactly 32 characters)', () => {
    expect(problems({ auth: { jwtSecret: SECRET }, collections: [users] })).toEqual([]);
  });

  it('needs no secret while no collection has auth', () => {
    expect(problems({ collections: [{ slug: 'posts', fields: {} }] })).toEqual([]);
  });

  it.each<[string, Omit<ContentConfig, 'db'>, string]>([
    ['missing secret', { collections: [users] }, 'auth.jwtSecret: required, at least 32 characters'],
    ['unknown auth option', { auth: { jwtSecret: SECRET, jwtExpires: '1h' } as never, collections: [users] }, 'auth.jwtExpires: unknown option'],
    ['unknown passwordHash option', { auth: { jwtSecret: SECRET, passwordHash: { N: 2 } } as never, collections: [users] }, 'auth.passwordHash.N: unknown option'],
    ['unknown email option', { auth: { jwtSecret: SECRET }, email: { from: 'x' } as never, collections: [users] }, 'email.from: unknown option'],
    ['short secret', { auth: { jwtSecret: 'x'.repeat(31) }, collections: [users] }, 'auth.jwtSecret: required, at least 32 characters'],
    ['bad jwtExpiry', { auth: { jwtSecret: SECRET, jwtExpiry: '15 minutes' }, collections: [users] }, 'auth.jwtExpiry: must be a duration'],
    ['bad refreshExpiry', { auth: { jwtSecret: SECRET, refreshExpiry: '-1d' }, collections: [users] }, 'auth.refreshExpiry: must be a duration'],
    ['bad lockTime', { auth: { jwtSecret: SECRET, lockTime: 'soon' }, collections: [users] }, 'auth.lockTime: must be a duration'],
    ['bad maxLoginAttempts', { auth: { jwtSecret: SECRET, maxLoginAttempts: -1 }, collections: [users] }, 'auth.maxLoginAttempts: must be an integer >= 0'],
    ['bad minLength', { auth: { jwtSecret: SECRET, password: { minLength: 0 } }, collections: [users] }, 'auth.password.minLength: must be an integer from 1'],
    ['bad policy flag', { auth: { jwtSecret: SECRET, password: { requireSymbols: 'yes' as never } }, collections: [users] }, 'auth.password.requireSymbols: must be a boolean'],
    ['unknown policy option', { auth: { jwtSecret: SECRET, password: { maxLength: 9 } as never }, collections: [users] }, 'auth.password.maxLength: unknown option'],
    ['hash cost not a power of two', { auth: { jwtSecret: SECRET, passwordHash: { cost: 1000 } }, collections: [users] }, 'auth.passwordHash.cost: must be a power of two'],
    ['bad hash block size', { auth: { jwtSecret: SECRET, passwordHash: { blockSize: 0 } }, collections: [users] }, 'auth.passwordHash.blockSize'],
    ['url without {token}', { auth: { jwtSecret: SECRET, resetPasswordUrl: 'https://x/reset' }, collections: [users] }, 'auth.resetPasswordUrl: must be a string containing "{token}"'],
    ['email.send not a function', { auth: { jwtSecret: SECRET }, email: { send: 'smtp' as never }, collections: [users] }, 'email.send: must be a function'],
    ['collection option unknown', { auth: { jwtSecret: SECRET }, collections: [{ slug: 'users', auth: { jwtSecret: SECRET } as never, fields: {} }] }, 'collections[0].auth.jwtSecret: not a per-collection auth option'],
    ['collection duration bad', { auth: { jwtSecret: SECRET }, collections: [{ slug: 'users', auth: { jwtExpiry: 'x' }, fields: {} }] }, 'collections[0].auth.jwtExpiry: must be a duration'],
    ['redefined password field', { auth: { jwtSecret: SECRET }, collections: [{ slug: 'users', auth: true, fields: { password: { type: 'text' } } }] }, 'collections[0].fields.password: defined by auth collections'],
    ['redefined resetToken field', { auth: { jwtSecret: SECRET }, collections: [{ slug: 'users', auth: true, fields: { resetToken: { type: 'text' } } }] }, 'collections[0].fields.resetToken: defined by auth collections'],
    ['slug taken by an auth store', { auth: { jwtSecret: SECRET }, collections: [users, { slug: 'users_api_keys', fields: {} }] }, 'collections[0].slug: auth stores its data in "users_api_keys"'],
    ['searching the hidden password', { auth: { jwtSecret: SECRET }, collections: [{ ...users, search: ['password'] }] }, 'collections[0].search: hidden field "password" cannot be searched'],
  ])('reports %s', (_name, config, expected) => {
    expect(problems(config).join('\n')).toContain(expected);
  });

  it('lets auth collections search their built-in email and redefine name and role', () => {
    expect(
      problems({
        auth: { jwtSecret: SECRET },
        collections: [{ slug: 'users', auth: true, search: ['email', 'name'], fields: { name: { type: 'text', required: true }, role: { type: 'select', options: ['admin', 'editor', 'user'], default: 'user' } } }],
      }),
    ).toEqual([]);
  });

  it('makes contentRouter() throw a ConfigError without a strong secret, before touching the database', () => {
    const connections = mongoose.connections.length;
    expect(() => contentRouter({ db, collections: [users] })).toThrow(ConfigError);
    expect(() => contentRouter({ db, auth: { jwtSecret: 'short' }, collections: [users] })).toThrow(/auth\.jwtSecret/);
    expect(mongoose.connections.length).toBe(connections);
  });
});

describe('resolveAuthOptions', () => {
  it('fills the documented defaults', () => {
    const options = resolveAuthOptions({ db, auth: { jwtSecret: SECRET } }, users);
    expect(options.jwt.secret.type).toBe('secret');
    expect(options.jwt.secret.export().toString('utf8')).toBe(SECRET);
    expect(options).toMatchObject({
      jwtExpirySeconds: 900,
      refreshExpiryMs: 30 * 86_400_000,
      resetExpiryMs: 3_600_000,
      verificationExpiryMs: 86_400_000,
      requireVerification: false,
      maxLoginAttempts: 5,
      lockTimeMs: 900_000,
      password: { minLength: 8, requireUppercase: false, requireNumbers: false, requireSymbols: false },
      hash: { cost: 32768, blockSize: 8, parallelization: 1 },
    });
  });

  it('lets a collection override the top-level options', () => {
    const options = resolveAuthOptions(
      { db, auth: { jwtSecret: SECRET, jwtExpiry: '5m', requireVerification: false, password: { minLength: 10, requireNumbers: true } } },
      { slug: 'admins', fields: {}, auth: { requireVerification: true, jwtExpiry: 60, password: { minLength: 16 } } },
    );
    expect(options.requireVerification).toBe(true);
    expect(options.jwtExpirySeconds).toBe(60);
    expect(options.password).toMatchObject({ minLength: 16, requireNumbers: true });
  });
});
