// Serves a route table as one middleware: a request is matched once against the table (literal segments
// before parameters), a known path with another method is a 405 with Allow, an unknown sub-path of a
// path the router owns is a 404, and anything else goes on to the host's next handler.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { ConfigError, MethodNotAllowedError, NotFoundError, QueryError } from '../errors';
import { type Lifecycle, type RequestPhase, type RouteChain, composeRoute, runChain } from './lifecycle';
import { requestState } from '../operations/request-state';
import type { RouteDef } from './route-table';

type Segment = { literal: string } | { param: string };

/** One method of a path: its route, its chain (its phases' handlers, its own, its answer's watchers), and for upgrades the phases alone. */
interface Served {
  route: RouteDef;
  chain: RouteChain;
  upgrade?: RouteChain;
}

interface Pattern {
  path: string;
  segments: Segment[];
  /** Upper-case method -> what serves it. */
  methods: Map<string, Served>;
  allow: string;
}

/** One method and path the dispatcher serves, as compiled from the table (HEAD and OPTIONS are implied). */
export interface MountedRoute {
  /** Upper case: `GET`, `POST`, ... */
  readonly method: string;
  readonly path: string;
  readonly operationId: string;
  /** Left out of the OpenAPI document (RouteDef.undocumented). */
  readonly undocumented?: true;
}

/** What serves an upgrade request: the route's phases (its handler replaced by `upgrade`), then its `upgrade` handler. */
export interface UpgradeMatch {
  /** The route's request phases, and its error hooks for a refusal. */
  readonly before: RouteChain;
  readonly route: RouteDef & { upgrade: NonNullable<RouteDef['upgrade']> };
  readonly params: Record<string, string>;
}

/** The dispatcher middleware, carrying the list of what it compiled (for `api.routes` and its tests). */
export type Dispatcher = RequestHandler & {
  readonly routes: readonly MountedRoute[];
  /**
   * The GET route at exactly `path` (relative to the mount path; no trailing slash or empty segment) when it
   * takes upgrade requests (WebSocket), with the phases every request of that route runs; undefined when
   * no such route is there.
   */
  matchUpgrade(path: string): UpgradeMatch | undefined;
};

function parsePattern(path: string): Segment[] {
  return path
    .split('/')
    .filter(Boolean)
    .map((part) => (part.startsWith(':') ? { param: part.slice(1) } : { literal: part }));
}

/** Literal segments outrank parameters, left to right: `/users/me` before `/users/:id`. */
function compareSpecificity(a: Pattern, b: Pattern): number {
  for (let i = 0; i < Math.min(a.segments.length, b.segments.length); i++) {
    const aLiteral = 'literal' in a.segments[i];
    const bLiteral = 'literal' in b.segments[i];
    if (aLiteral !== bLiteral) return aLiteral ? -1 : 1;
  }
  return 0;
}

function decodeSegment(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/** Thrown for a parameter that is not valid percent-encoding: the client's mistake, not a missing route. */
const MALFORMED_PATH = new QueryError('The path is not valid percent-encoding.', [{ field: 'path', message: 'malformed percent-encoding', code: 'malformed_path' }]);

function matchPattern(pattern: Pattern, parts: readonly string[]): Record<string, string> | undefined {
  if (pattern.segments.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < parts.length; i++) {
    const segment = pattern.segments[i];
    if ('literal' in segment) {
      if (segment.literal !== parts[i]) return undefined;
    } else {
      const value = decodeSegment(parts[i]);
      if (value === undefined) throw MALFORMED_PATH;
      params[segment.param] = value;
    }
  }
  return params;
}

/**
 * Compiles the table into one middleware. Two routes with the same method and path, or the same
 * operationId, throw at start-up, naming both. Each route's chain is composed from `lifecycle`'s phases
 * here, once: a request allocates nothing for it. Errors, the dispatcher's own included, go to its onError hooks.
 */
export function createDispatcher(routes: readonly RouteDef[], lifecycle: Pick<Lifecycle, RequestPhase | 'onSend' | 'onError' | 'onLeave'>): Dispatcher {
  const patterns = new Map<string, Pattern>();
  const mounted: MountedRoute[] = [];
  const owners = new Map<string, string>();
  const problems: string[] = [];
  // operationIds name operations in the OpenAPI document and in clients generated from it.
  const operationIds = new Map<string, string>();
  for (const route of routes) {
    const holder = operationIds.get(route.operationId);
    if (holder) problems.push(`route ${route.method.toUpperCase()} ${route.path} reuses the operationId "${route.operationId}" of ${holder}`);
    operationIds.set(route.operationId, `${route.method.toUpperCase()} ${route.path}`);
    const segments = parsePattern(route.path);
    // `/posts/:id` and `/posts/:slug` are one path: key on the shape, not the names.
    const key = segments.map((s) => ('literal' in s ? s.literal : ':')).join('/');
    const method = route.method.toUpperCase();
    const name = `${method} ${route.path} (${route.source ? `${route.source}, ` : ''}${route.operationId})`;
    const owner = owners.get(`${method} ${key}`);
    if (owner) problems.push(`route ${name} collides with ${owner}`);
    owners.set(`${method} ${key}`, name);
    let pattern = patterns.get(key);
    if (!pattern) {
      pattern = { path: route.path, segments, methods: new Map(), allow: '' };
      patterns.set(key, pattern);
    }
    const chain = composeRoute(lifecycle, route);
    // An upgrade runs its route's phases, not its handler: `upgrade` takes over once they let it through.
    // Its phases passing it on is not leaving the router: the route's `upgrade` takes it from there.
    const upgrade = route.upgrade ? { steps: chain.steps, onSend: [], onError: chain.onError, onLeave: [] } : undefined;
    pattern.methods.set(method, { route, chain, upgrade });
    mounted.push(Object.freeze({ method, path: route.path, operationId: route.operationId, ...(route.undocumented && { undocumented: true as const }) }));
  }
  if (problems.length) throw new ConfigError(problems);
  // For the dispatcher's own errors (a 404 under a path the router owns, a 405, a malformed parameter).
  const errors: RouteChain = { steps: [], onSend: [], onError: [...lifecycle.onError], onLeave: [] };
  const fail = (req: Request, res: Response, next: NextFunction, error: unknown) => runChain(errors, req, res, next, error);

  // Grouped by first segment, so a request looks only at the patterns of the path it names.
  const byHead = new Map<string, Pattern[]>();
  for (const pattern of patterns.values()) {
    const methods = [...pattern.methods.keys()];
    if (methods.includes('GET')) methods.push('HEAD');
    pattern.allow = methods.sort().join(', ');
    const head = pattern.segments[0] && 'literal' in pattern.segments[0] ? pattern.segments[0].literal : '';
    byHead.set(head, [...(byHead.get(head) ?? []), pattern]);
  }
  for (const list of byHead.values()) list.sort(compareSpecificity);

  /** The pattern matching a path's segments and its parameters; throws for a parameter that does not decode. */
  function find(parts: readonly string[]): { pattern: Pattern; params: Record<string, string> } | undefined {
    for (const pattern of byHead.get(parts[0] ?? '') ?? []) {
      const params = matchPattern(pattern, parts);
      if (params) return { pattern, params };
    }
    return undefined;
  }

  const dispatch: RequestHandler = (req, res, next) => {
    const parts = req.path.split('/').filter(Boolean);
    if (!byHead.has(parts[0] ?? '')) {
      next();
      return;
    }
    let found;
    try {
      found = find(parts);
    } catch (error) {
      fail(req, res, next, error);
      return;
    }
    if (!found) {
      fail(req, res, next, new NotFoundError(`No route ${req.method} ${req.baseUrl}${req.path}.`));
      return;
    }
    const { pattern, params } = found;
    const method = req.method === 'HEAD' && !pattern.methods.has('HEAD') ? 'GET' : req.method;
    const served = pattern.methods.get(method);
    if (!served) {
      if (req.method === 'OPTIONS') {
        res.status(204).set('Allow', pattern.allow).end();
        return;
      }
      fail(req, res, next, new MethodNotAllowedError(req.method, pattern.allow));
      return;
    }
    req.params = params;
    // The request's state, made as it enters its route: everything its phases keep for it lives there.
    requestState(req);
    runChain(served.chain, req, res, next);
  };

  function matchUpgrade(path: string): UpgradeMatch | undefined {
    // Exactly the route's path: unlike plain requests, no trailing slash or empty segment (`/ws/`, `//ws`)
    // is forgiven, since an upgrade that is not ours goes to the host's listeners.
    const [root, ...parts] = path.split('/');
    if (root !== '' || parts.includes('')) return undefined;
    let found;
    try {
      found = find(parts);
    } catch {
      // Not a path any route of ours could serve: the upgrade is someone else's.
      return undefined;
    }
    const served = found?.pattern.methods.get('GET');
    if (!found || !served?.upgrade) return undefined;
    return { before: served.upgrade, route: served.route as UpgradeMatch['route'], params: found.params };
  }

  return Object.assign(dispatch, { routes: Object.freeze(mounted), matchUpgrade });
}
