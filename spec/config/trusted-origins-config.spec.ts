// `security.trustedOrigins`: origins exactly as browsers send them in `Origin`, or a ConfigError naming the entry.
import { ConfigError, type ContentConfig, contentRouter } from '../../lib';
import { validateConfig } from '../../lib/config/validate-config';

const db = { uri: 'mongodb://127.0.0.1:1/never-used' };
const problems = (security: unknown) => validateConfig({ db, security } as ContentConfig);

it('takes origins as browsers send them', () => {
  expect(problems({ trustedOrigins: ['https://admin.example.com', 'http://localhost:5173', 'https://[::1]:8443'] })).toEqual([]);
  expect(problems({ trustedOrigins: [] })).toEqual([]);
});

it.each([
  ['a path', 'https://a.com/path', 'security.trustedOrigins[0]: "https://a.com/path" is not an origin'],
  ['a wildcard', '*', 'security.trustedOrigins[0]: "*" is not an origin'],
  ['a trailing slash', 'https://a.com/', 'did you mean "https://a.com"?'],
  ['the default port', 'https://a.com:443', 'did you mean "https://a.com"?'],
  ['upper case', 'https://Admin.Example.com', 'did you mean "https://admin.example.com"?'],
  ['no scheme', 'admin.example.com', 'is not an origin'],
  ['a wildcard subdomain', 'https://*.example.com', 'is not an origin'],
  ['another scheme', 'ftp://files.example.com', 'is not an origin'],
  ['the null origin', 'null', 'is not an origin'],
  ['not a string', 42, 'security.trustedOrigins[0]: 42 is not an origin'],
])('refuses %s', (_name, origin, problem) => {
  expect(problems({ trustedOrigins: [origin] })).toEqual([expect.stringContaining(problem)]);
});

it('refuses a value that is not an array, and an unknown security option', () => {
  expect(problems({ trustedOrigins: 'https://a.com' })).toEqual(['security.trustedOrigins: must be an array of origins such as "https://admin.example.com"']);
  expect(problems({ trustedOrigin: ['https://a.com'] })).toEqual(['security.trustedOrigin: unknown option']);
  expect(problems(true)).toEqual(['security: must be an object { rateLimit, trustedOrigins }']);
});

it('is a ConfigError at contentRouter() time', () => {
  expect(() => contentRouter({ db, security: { trustedOrigins: ['https://a.com/path'] } })).toThrow(ConfigError);
});
