// The `docs` option: validated with the rest of the config (problems named by path) and resolved once.
import { ConfigError, contentRouter } from '../../lib';
import type { ContentConfig } from '../../lib';
import { parseDocsOptions, resolveDocsOptions } from '../../lib/openapi/docs-options';

const validateDocsOptions = (config: ContentConfig) => parseDocsOptions(config).problems;

const db = { uri: 'mongodb://127.0.0.1:1/never-used' };

describe('parseDocsOptions', () => {
  it.each([undefined, false, {}, { public: true }, { public: false }, { perCaller: true }, { perCaller: false }])('accepts %p', (docs) => {
    expect(validateDocsOptions({ db, docs } as ContentConfig)).toEqual([]);
  });

  it.each<[string, unknown, string]>([
    ['a string', 'yes', 'docs: must be true, false or an object'],
    ['an array', [], 'docs: must be true, false or an object'],
    ['an unknown key', { pubic: true }, 'docs.pubic: unknown option'],
    ['a non-boolean public', { public: 'no' }, 'docs.public: must be a boolean'],
    ['a non-boolean perCaller', { perCaller: 'yes' }, 'docs.perCaller: must be a boolean'],
    ['a null perCaller', { perCaller: null }, 'docs.perCaller: must be a boolean'],
  ])('reports %s', (_name, docs, expected) => {
    const problems = validateDocsOptions({ db, docs } as ContentConfig);
    expect(problems).toEqual([expect.stringContaining(expected)]);
  });

  it.each([
    { session: { type: 'apiKey', in: 'cookie', name: 'connect.sid', description: 'The session cookie' } },
    { basic: { type: 'http', scheme: 'basic', 'x-www-authenticate': 'Basic realm="staff", charset="UTF-8"' } },
    { sso: { type: 'openIdConnect', openIdConnectUrl: 'https://id.example.com/.well-known/openid-configuration' } },
    { oauth: { type: 'oauth2', flows: { authorizationCode: { authorizationUrl: 'https://id.example.com/auth', tokenUrl: 'https://id.example.com/token', scopes: { read: 'Read' } } } } },
    { mtls: { type: 'mutualTLS', 'x-internal': true } },
  ])('accepts the security schemes %p', (securitySchemes) => {
    expect(validateDocsOptions({ db, docs: { securitySchemes } } as unknown as ContentConfig)).toEqual([]);
  });

  it.each<[string, unknown, string]>([
    ['schemes that are not an object', { securitySchemes: [] }, 'docs.securitySchemes: must be an object mapping scheme names'],
    ['a scheme name the router uses', { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } } }, 'docs.securitySchemes.bearerAuth: "bearerAuth" is the name of one of the router\'s own schemes'],
    ['a bad scheme name', { securitySchemes: { 'my session': { type: 'apiKey', in: 'cookie', name: 'sid' } } }, 'docs.securitySchemes.my session: "my session" is not a valid scheme name'],
    ['an unknown type', { securitySchemes: { s: { type: 'cookie' } } }, 'docs.securitySchemes.s.type: must be one of apiKey, http, oauth2, openIdConnect, mutualTLS'],
    ['an apiKey without in', { securitySchemes: { s: { type: 'apiKey', name: 'sid' } } }, 'docs.securitySchemes.s.in: must be "header", "query" or "cookie"'],
    ['an apiKey without name', { securitySchemes: { s: { type: 'apiKey', in: 'cookie' } } }, 'docs.securitySchemes.s.name: required'],
    ['an http scheme that is no token', { securitySchemes: { s: { type: 'http', scheme: 'my scheme' } } }, 'docs.securitySchemes.s.scheme: required, an HTTP auth scheme'],
    ['an option of another type', { securitySchemes: { s: { type: 'http', scheme: 'basic', in: 'header' } } }, 'docs.securitySchemes.s.in: unknown option'],
    ['an oauth2 flow without its URL', { securitySchemes: { s: { type: 'oauth2', flows: { password: { scopes: {} } } } } }, 'docs.securitySchemes.s.flows.password.tokenUrl: required, a URL'],
    ['an openIdConnect without its URL', { securitySchemes: { s: { type: 'openIdConnect' } } }, 'docs.securitySchemes.s.openIdConnectUrl: required, a URL'],
    ['a challenge with a line break', { securitySchemes: { s: { type: 'apiKey', in: 'cookie', name: 'sid', 'x-www-authenticate': 'Cookie\r\nSet-Cookie: x=1' } } }, 'docs.securitySchemes.s.x-www-authenticate: must be a challenge'],
    ['a requirement naming an undeclared scheme', { securitySchemes: { s: { type: 'mutualTLS' } }, security: [{ t: [] }] }, 'docs.security[0].t: not a scheme of docs.securitySchemes'],
    ['an empty requirement', { securitySchemes: { s: { type: 'mutualTLS' } }, security: [{}] }, 'docs.security[0]: must name at least one scheme'],
    ['scopes that are not a list', { securitySchemes: { s: { type: 'mutualTLS' } }, security: [{ s: 'read' }] }, 'docs.security[0].s: must be an array of scope names'],
    ['security without schemes', { security: [{ s: [] }] }, 'docs.security: needs docs.securitySchemes'],
  ])('reports %s', (_name, docs, expected) => {
    expect(validateDocsOptions({ db, docs } as ContentConfig)).toEqual(expect.arrayContaining([expect.stringContaining(expected)]));
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
    const none = { securitySchemes: {}, security: [], perCaller: false };
    expect(resolveDocsOptions(undefined)).toEqual({ enabled: true, public: true, ...none });
    expect(resolveDocsOptions({})).toEqual({ enabled: true, public: true, ...none });
  });
  it('perCaller: true serves each caller its own document', () => {
    expect(resolveDocsOptions({ perCaller: true })).toMatchObject({ enabled: true, public: true, perCaller: true });
  });

  it('false turns it off; public: false needs a caller', () => {
    expect(resolveDocsOptions(false)).toMatchObject({ enabled: false, public: false });
    expect(resolveDocsOptions({ public: false })).toMatchObject({ enabled: true, public: false });
  });
  it("the host's schemes, presented each on its own unless docs.security says how", () => {
    const session = { type: 'apiKey', in: 'cookie', name: 'sid' } as const;
    expect(resolveDocsOptions({ securitySchemes: { session } })).toMatchObject({ securitySchemes: { session }, security: [{ session: [] }] });
    const csrf = { type: 'apiKey', in: 'header', name: 'X-CSRF' } as const;
    expect(resolveDocsOptions({ securitySchemes: { session, csrf }, security: [{ session: [], csrf: [] }] }).security).toEqual([{ session: [], csrf: [] }]);
  });
});
