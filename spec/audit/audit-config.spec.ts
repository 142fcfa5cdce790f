// The `audit` option: off when absent; every bad option a ConfigError naming its path (through
// contentRouter() too); the defaults (every collection, 90 days) resolve as documented.
import { ConfigError, type ContentConfig, contentRouter } from '../../lib';
import { parseAuditOptions } from '../../lib/audit/audit-options';
import { validateConfig } from '../../lib/config/validate-config';

const db = { uri: 'mongodb://127.0.0.1:1/never-used' };
const collections = [{ slug: 'posts', fields: { title: { type: 'text' as const } } }];
const globals = [{ slug: 'site', fields: { name: { type: 'text' as const } } }];

function problems(audit: unknown): string[] {
  return validateConfig({ db, collections, globals, audit } as ContentConfig, [parseAuditOptions]);
}

describe('audit config', () => {
  it.each<[string, unknown]>([
    ['absent', undefined],
    ['empty', {}],
    ['every collection', { collections: '*' }],
    ['a collection, a global and the files', { collections: ['posts', 'site', '_uploads'] }],
    ['a duration', { retention: '30d' }],
    ['seconds', { retention: 3600 }],
    ['keep all', { retention: 0 }],
    ['a sink', { sink: () => undefined }],
    ['a read rule', { access: { read: () => true } }],
  ])('accepts %s', (_name, audit) => {
    expect(problems(audit)).toEqual([]);
  });

  it.each<[string, unknown, string]>([
    ['not an object', true, 'audit: must be an object'],
    ['an unknown option', { keep: 1 }, 'audit.keep: unknown option'],
    ['collections of another type', { collections: 'posts' }, "audit.collections: must be '*' or an array"],
    ['an unknown collection', { collections: ['posts', 'nope'] }, 'audit.collections[1]: "nope" is not a collection, a global or _uploads'],
    ['a retention without unit', { retention: '90' }, 'audit.retention: must be a duration'],
    ['a retention under a second', { retention: '10ms' }, 'audit.retention: must be a duration'],
    ['a negative retention', { retention: -1 }, 'audit.retention: must be a duration'],
    ['a sink that is not a function', { sink: 'siem' }, 'audit.sink: must be a function'],
    ['access of another type', { access: () => true }, 'audit.access: must be an object { read }'],
    ['an access rule that writes', { access: { read: () => true, delete: () => true } }, 'audit.access.delete: unknown option'],
    ['a read rule that is not a function', { access: { read: true } }, 'audit.access.read: must be a function'],
  ])('refuses %s', (_name, audit, problem) => {
    expect(problems(audit)).toEqual([expect.stringContaining(problem)]);
  });

  it('refuses a collection named audit, whose routes the log would take', () => {
    const taken = validateConfig({ db, collections: [{ slug: 'audit', fields: { a: { type: 'text' } } }], audit: {} } as ContentConfig, [parseAuditOptions]);
    expect(taken).toEqual([expect.stringContaining('audit: the collection "audit" would answer the audit log\'s routes')]);
  });

  it('reports its problems through contentRouter(), before any connection', () => {
    expect(() => contentRouter({ db, collections, audit: { retention: 'forever' } as never })).toThrow(ConfigError);
  });

  it('is off when absent, and defaults to every collection kept 90 days', () => {
    expect(parseAuditOptions({ db }).options).toBeUndefined();
    const options = parseAuditOptions({ db, collections, audit: {} }).options;
    expect(options?.retentionMs).toBe(90 * 24 * 3_600_000);
    expect(options?.records('posts')).toBe(true);
    expect(options?.records('_uploads')).toBe(true);
    const some = parseAuditOptions({ db, collections, globals, audit: { collections: ['site'], retention: '1h' } }).options;
    expect([some?.records('site'), some?.records('posts'), some?.retentionMs]).toEqual([true, false, 3_600_000]);
  });
});
