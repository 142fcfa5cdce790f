// The WWW-Authenticate challenge of the router's 401s, decided once from the config: one challenge per way
// to authenticate the router accepts. A 401 must carry at least one (RFC 9110 section 11.6.1), and it must
// not name a scheme nobody accepts: `Bearer` only where an auth collection issues tokens and keys.
import type { ContentConfig, SecurityScheme } from './types';

/** The challenge of the router's own credentials (access tokens and API keys, as Bearer or X-API-Key). */
const OWN_CHALLENGE = 'Bearer';

/** `basic` -> `Basic`: schemes are case-insensitive, and this is how they are usually written. */
const capitalize = (scheme: string) => scheme.charAt(0).toUpperCase() + scheme.slice(1);

/**
 * The challenge a 401 sends for one of the host's schemes: its own `x-www-authenticate`, else the `http`
 * scheme, `Bearer` for OAuth 2 and OpenID Connect (their tokens are bearer tokens), and for the schemes HTTP
 * has no name for (a cookie, a header or query key, a client certificate) the scheme's name in the
 * document, a valid auth-scheme token a client can look up there.
 */
export function schemeChallenge(name: string, scheme: SecurityScheme): string {
  if (typeof scheme['x-www-authenticate'] === 'string') return scheme['x-www-authenticate'];
  switch (scheme.type) {
    case 'http':
      return capitalize(scheme.scheme);
    case 'oauth2':
    case 'openIdConnect':
      return OWN_CHALLENGE;
    default:
      return name;
  }
}

/** The host's schemes (`docs.securitySchemes`), by name; empty when the docs are off or declare none. */
export function hostSecuritySchemes(config: Pick<ContentConfig, 'docs'>): Readonly<Record<string, SecurityScheme>> {
  const docs = config.docs;
  return (typeof docs === 'object' && docs.securitySchemes) || {};
}

/** The ways the host's schemes are presented (`docs.security`): as given, else each scheme on its own. */
export function hostSecurity(config: Pick<ContentConfig, 'docs'>): Array<Record<string, string[]>> {
  const docs = config.docs;
  if (typeof docs === 'object' && docs.security) return docs.security;
  return Object.keys(hostSecuritySchemes(config)).map((name) => ({ [name]: [] }));
}

/**
 * The `WWW-Authenticate` value of the router's 401s: `Bearer` with an auth collection, then one challenge
 * per way the host's auth is presented (that of the first scheme it names: a session cookie, not the CSRF
 * header that goes with it), each once. Undefined when the router knows no way to authenticate (no auth
 * collection, no declared scheme): it then names none rather than one it does not accept.
 */
export function authChallenge(config: Pick<ContentConfig, 'collections' | 'docs'>): string | undefined {
  const challenges = new Set<string>();
  if ((config.collections ?? []).some((collection) => collection.auth)) challenges.add(OWN_CHALLENGE);
  const schemes: Partial<Record<string, SecurityScheme>> = hostSecuritySchemes(config);
  for (const requirement of hostSecurity(config)) {
    const first = Object.keys(requirement).at(0);
    const scheme = first === undefined ? undefined : schemes[first];
    if (first !== undefined && scheme) challenges.add(schemeChallenge(first, scheme));
  }
  return challenges.size ? [...challenges].join(', ') : undefined;
}
