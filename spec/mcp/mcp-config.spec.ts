// The `mcp` option: true, false or an object of known keys; a bad value or an unknown key is a ConfigError
// naming its path, through contentRouter() too.
import { ConfigError, type ContentConfig, contentRouter } from '../../lib';
import { validateConfig } from '../../lib/config/validate-config';
import { parseMcpOptions } from '../../lib/mcp/mcp-options';

const db = { uri: 'mongodb://127.0.0.1:1/never-used' };

function problems(mcp: unknown): string[] {
  return validateConfig({ db, collections: [], mcp } as ContentConfig, [parseMcpOptions]);
}

describe('mcp config', () => {
  it.each<[string, unknown]>([
    ['absent', undefined],
    ['true', true],
    ['false', false],
    ['empty', {}],
    ['every option', { write: true, allowedHosts: ['localhost', '127.0.0.1', '[::1]'], allowedOrigins: ['app.example.com'] }],
  ])('accepts %s', (_name, mcp) => {
    expect(problems(mcp)).toEqual([]);
  });

  it('resolves true to the read tools only, and an object to its options', () => {
    expect(parseMcpOptions({ db, collections: [], mcp: true }).options).toEqual({ write: false });
    expect(parseMcpOptions({ db, collections: [] }).options).toBeUndefined();
    expect(parseMcpOptions({ db, collections: [], mcp: { write: true, allowedHosts: ['localhost'] } }).options).toEqual({ write: true, allowedHosts: ['localhost'] });
  });

  it('brackets a bare IPv6 address, as the Host and Origin headers spell it', () => {
    const options = parseMcpOptions({ db, collections: [], mcp: { allowedHosts: ['::1', '[::1]', 'localhost'], allowedOrigins: ['fe80::1'] } }).options;
    expect(options).toEqual({ write: false, allowedHosts: ['[::1]', '[::1]', 'localhost'], allowedOrigins: ['[fe80::1]'] });
  });

  it.each<[string, unknown, string]>([
    ['not an object', 'on', 'mcp: must be true, false or an object { write, allowedHosts, allowedOrigins }'],
    ['an array', [], 'mcp: must be true, false or an object { write, allowedHosts, allowedOrigins }'],
    ['an unknown key', { writes: true }, 'mcp.writes: unknown option'],
    ['write not a boolean', { write: 'yes' }, 'mcp.write: must be a boolean'],
    ['allowedHosts not a list', { allowedHosts: 'localhost' }, 'mcp.allowedHosts: must be an array of hostnames'],
    ['a host with a scheme', { allowedHosts: ['http://localhost'] }, 'mcp.allowedHosts[0]: must be a hostname (no scheme, path or spaces)'],
    ['an empty origin', { allowedOrigins: ['ok.example', ''] }, 'mcp.allowedOrigins[1]: must be a hostname (no scheme, path or spaces)'],
  ])('refuses %s', (_name, mcp, problem) => {
    expect(problems(mcp)).toEqual([problem]);
  });

  it('contentRouter() throws a ConfigError naming the path', () => {
    expect(() => contentRouter({ db, collections: [], mcp: { write: 1 } as never })).toThrow(ConfigError);
    expect(() => contentRouter({ db, collections: [], mcp: { write: 1 } as never })).toThrow(/mcp\.write: must be a boolean/);
  });
});
