// The `docs` option: checked and resolved in one pass at start-up, with the rest of the config (problems
// named by path), into whether the documentation is served at all, whether it needs an authenticated caller,
// the security schemes of the host's own auth it describes beside the router's, and whether the document
// lists a rate limit's answers.
import { hostSecurity, hostSecuritySchemes } from '../config/auth-challenge';
import type { ParsedOptions } from '../config/resolve-config';
import type { ContentConfig, SecurityScheme } from '../config/types';
import { isRecord } from '../util/is-record';

/** What the docs routes do, decided once when the router is built. */
export interface ResolvedDocsOptions {
  /** False when the host set `docs: false`: no docs routes at all, the paths fall through to the host. */
  readonly enabled: boolean;
  /** False: every docs route answers 401 to a caller who is not authenticated. */
  readonly public: boolean;
  /** The host's own schemes, by name (`docs.securitySchemes`). */
  readonly securitySchemes: Readonly<Record<string, SecurityScheme>>;
  /** The ways they are presented (`docs.security`, default each scheme on its own). */
  readonly security: ReadonlyArray<Record<string, string[]>>;
  /** True: each caller is served the document of what its access rules let it reach (`docs.perCaller`). */
  readonly perCaller: boolean;
}

/** What the docs feature runs on: the `docs` option resolved, and what the document says of the rest of the config. */
export interface DocsFeatureOptions extends ResolvedDocsOptions {
  /** Whether `security.rateLimit` is set: the document lists the 429 answers. */
  readonly rateLimit: boolean;
}

const KEYS = ['public', 'securitySchemes', 'security', 'perCaller'];

/** The names of the router's own schemes (with an auth collection): a host scheme may not take them. */
export const OWN_SCHEME_NAMES = ['bearerAuth', 'apiKeyBearer', 'apiKeyHeader'];

/** A component name, as OpenAPI 3.1 allows it (and a valid auth-scheme token for the challenge). */
const SCHEME_NAME = /^[A-Za-z0-9._-]{1,64}$/;
/** An auth-scheme token (RFC 9110 section 11.1). */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** A header value the challenge may be: visible ASCII and spaces, no line breaks. */
const CHALLENGE = /^[\x21-\x7e][\x20-\x7e]*$/;

const TYPE_KEYS: Partial<Record<string, readonly string[]>> = {
  apiKey: ['name', 'in'],
  http: ['scheme', 'bearerFormat'],
  oauth2: ['flows'],
  openIdConnect: ['openIdConnectUrl'],
  mutualTLS: [],
};
/** Each OAuth 2 flow and the URLs it needs. */
const FLOW_URLS: Partial<Record<string, readonly string[]>> = {
  implicit: ['authorizationUrl'],
  password: ['tokenUrl'],
  clientCredentials: ['tokenUrl'],
  authorizationCode: ['authorizationUrl', 'tokenUrl'],
};

const isText = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';

function checkFlows(path: string, flows: unknown, problems: string[]): void {
  if (!isRecord(flows) || Object.keys(flows).length === 0) {
    problems.push(`${path}: must be an object of one or more flows (${Object.keys(FLOW_URLS).join(', ')})`);
    return;
  }
  for (const [name, flow] of Object.entries(flows)) {
    const at = `${path}.${name}`;
    const urls = FLOW_URLS[name];
    if (!urls) {
      problems.push(`${at}: unknown flow (expected ${Object.keys(FLOW_URLS).join(', ')})`);
      continue;
    }
    if (!isRecord(flow)) {
      problems.push(`${at}: must be an object { ${[...urls, 'scopes'].join(', ')} }`);
      continue;
    }
    for (const key of Object.keys(flow)) {
      if (![...urls, 'refreshUrl', 'scopes'].includes(key)) problems.push(`${at}.${key}: unknown option`);
    }
    for (const url of urls) if (!isText(flow[url])) problems.push(`${at}.${url}: required, a URL`);
    if (flow.refreshUrl !== undefined && !isText(flow.refreshUrl)) problems.push(`${at}.refreshUrl: must be a URL`);
    if (!isRecord(flow.scopes) || !Object.values(flow.scopes).every((v) => typeof v === 'string')) {
      problems.push(`${at}.scopes: required, an object of scope name -> description`);
    }
  }
}

/** Problems of one security scheme object at `path`. */
function checkScheme(path: string, name: string, scheme: unknown, problems: string[]): void {
  if (!SCHEME_NAME.test(name)) problems.push(`${path}: "${name}" is not a valid scheme name (letters, digits, ".", "_", "-")`);
  else if (OWN_SCHEME_NAMES.includes(name)) problems.push(`${path}: "${name}" is the name of one of the router's own schemes`);
  if (!isRecord(scheme)) {
    problems.push(`${path}: must be an OpenAPI security scheme object { type, ... }`);
    return;
  }
  const known = typeof scheme.type === 'string' ? TYPE_KEYS[scheme.type] : undefined;
  if (!known) {
    problems.push(`${path}.type: must be one of ${Object.keys(TYPE_KEYS).join(', ')} (got ${JSON.stringify(scheme.type)})`);
    return;
  }
  for (const key of Object.keys(scheme)) {
    if (!['type', 'description', ...known].includes(key) && !key.startsWith('x-')) problems.push(`${path}.${key}: unknown option`);
  }
  if (scheme.description !== undefined && typeof scheme.description !== 'string') problems.push(`${path}.description: must be a string`);
  const challenge = scheme['x-www-authenticate'];
  if (challenge !== undefined && !(typeof challenge === 'string' && CHALLENGE.test(challenge))) {
    problems.push(`${path}.x-www-authenticate: must be a challenge: visible ASCII, starting with its auth scheme (\`Basic realm="staff"\`)`);
  }
  switch (scheme.type) {
    case 'apiKey':
      if (!isText(scheme.name)) problems.push(`${path}.name: required, the header, query parameter or cookie name`);
      if (!(typeof scheme.in === 'string' && ['header', 'query', 'cookie'].includes(scheme.in))) problems.push(`${path}.in: must be "header", "query" or "cookie"`);
      break;
    case 'http':
      if (!(typeof scheme.scheme === 'string' && TOKEN.test(scheme.scheme))) problems.push(`${path}.scheme: required, an HTTP auth scheme such as "basic" or "bearer"`);
      if (scheme.bearerFormat !== undefined && typeof scheme.bearerFormat !== 'string') problems.push(`${path}.bearerFormat: must be a string`);
      break;
    case 'oauth2':
      checkFlows(`${path}.flows`, scheme.flows, problems);
      break;
    case 'openIdConnect':
      if (!isText(scheme.openIdConnectUrl)) problems.push(`${path}.openIdConnectUrl: required, a URL`);
      break;
  }
}

/** Problems of `docs.security`: requirements naming declared schemes, each with a list of scopes or roles. */
function checkSecurity(security: unknown, declared: readonly string[], problems: string[]): void {
  if (!Array.isArray(security) || security.length === 0) {
    problems.push('docs.security: must be a non-empty array of requirements ({ <scheme>: [] })');
    return;
  }
  if (declared.length === 0) problems.push('docs.security: needs docs.securitySchemes to name');
  security.forEach((requirement, i) => {
    const at = `docs.security[${i}]`;
    if (!isRecord(requirement)) return void problems.push(`${at}: must be an object { <scheme>: [] }`);
    // Anonymous access is not the host's to declare for every route: the router says it where access rules decide.
    if (Object.keys(requirement).length === 0) problems.push(`${at}: must name at least one scheme`);
    for (const [name, scopes] of Object.entries(requirement)) {
      if (!declared.includes(name)) problems.push(`${at}.${name}: not a scheme of docs.securitySchemes`);
      if (!Array.isArray(scopes) || !scopes.every((scope) => typeof scope === 'string')) problems.push(`${at}.${name}: must be an array of scope names (often empty)`);
    }
  });
}

/** Checks and resolves `config.docs`; the options are undefined when there are problems. */
export function parseDocsOptions(config: ContentConfig): ParsedOptions<DocsFeatureOptions | undefined> {
  const problems = docsProblems(config);
  if (problems.length) return { problems, options: undefined };
  return {
    problems,
    options: Object.freeze({ ...resolveDocsOptions(config.docs), rateLimit: Boolean(config.security?.rateLimit) }),
  };
}

/** Problems of `config.docs`: the wrong type, unknown keys, a non-boolean `public`, bad security schemes. */
function docsProblems(config: ContentConfig): string[] {
  const docs: unknown = config.docs;
  if (docs === undefined || docs === false || docs === true) return [];
  if (!isRecord(docs)) return ['docs: must be true, false or an object { public?, securitySchemes?, security?, perCaller? }'];
  const problems: string[] = [];
  for (const key of Object.keys(docs)) {
    if (!KEYS.includes(key)) problems.push(`docs.${key}: unknown option`);
  }
  if (docs.public !== undefined && typeof docs.public !== 'boolean') problems.push('docs.public: must be a boolean');
  if (docs.perCaller !== undefined && typeof docs.perCaller !== 'boolean') problems.push('docs.perCaller: must be a boolean');
  const schemes = docs.securitySchemes;
  if (schemes !== undefined) {
    if (!isRecord(schemes) || Object.keys(schemes).length === 0) problems.push('docs.securitySchemes: must be an object mapping scheme names to OpenAPI security scheme objects');
    else for (const [name, scheme] of Object.entries(schemes)) checkScheme(`docs.securitySchemes.${name}`, name, scheme, problems);
  }
  if (docs.security !== undefined) checkSecurity(docs.security, isRecord(schemes) ? Object.keys(schemes) : [], problems);
  return problems;
}

/** Resolves a validated `docs` option: default on and public, no schemes of the host's, one document for every caller. */
export function resolveDocsOptions(docs: ContentConfig['docs']): ResolvedDocsOptions {
  const security = { securitySchemes: hostSecuritySchemes({ docs }), security: hostSecurity({ docs }) };
  if (docs === false) return { enabled: false, public: false, perCaller: false, ...security };
  const options = typeof docs === 'object' ? docs : {};
  return { enabled: true, public: options.public ?? true, perCaller: options.perCaller ?? false, ...security };
}
