// Custom endpoint paths: literal and `:param` segments only, the first one literal, so each path is one
// exact entry in the route table (no wildcards or patterns the table and the OpenAPI document cannot state).

const LITERAL = /^[A-Za-z0-9._~-]+$/;
const PARAM = /^:[A-Za-z_][A-Za-z0-9_]*$/;

/** What a valid custom path looks like, for problem messages. */
export const PATH_RULE = 'must start with "/" and be made of literal and :param segments, the first one literal (e.g. /posts/:id/related)';

/** Why `path` cannot be a custom endpoint path, or undefined when it can. */
export function checkEndpointPath(path: unknown): string | undefined {
  if (typeof path !== 'string' || !path.startsWith('/')) return PATH_RULE;
  const segments = path.split('/').slice(1);
  // A trailing slash is tolerated (`/contact/`), an empty segment inside is not (`/a//b`).
  if (segments.length > 1 && segments[segments.length - 1] === '') segments.pop();
  if (segments.length === 0 || !LITERAL.test(segments[0])) return PATH_RULE;
  const names = new Set<string>();
  for (const segment of segments) {
    if (PARAM.test(segment)) {
      if (names.has(segment)) return `names the parameter ${segment} twice`;
      names.add(segment);
    } else if (!LITERAL.test(segment)) {
      return PATH_RULE;
    }
  }
  return undefined;
}

/** A stable operationId part for a path: `/posts/:id/related` -> `posts.by-id.related`. */
export function pathToOperationPart(path: string): string {
  return path
    .split('/')
    .filter(Boolean)
    .map((segment) => (segment.startsWith(':') ? `by-${segment.slice(1)}` : segment))
    .join('.');
}
