// Function endpoints: the host's function registers routes on a fresh Express router; each route it
// registered becomes a route-table entry whose handler runs that router, with `req.context` set to the
// caller held to the method's API-key scope. Their JSON bodies are read by a parse-phase reader.
import express, { type RequestHandler, type Router } from 'express';
import type { EndpointFunction, EndpointMethod } from '../config/types';
import { JSON_TYPES } from '../http/json-body';
import type { RouteDef } from '../http/route-table';
import type { LocalApi } from '../local/local-api';
import type { Runtime } from '../operations/runtime';
import { callerResponses, endpointCaller, endpointScope, hideHostUser, scopedError } from './endpoint-caller';
import { checkEndpointPath, pathToOperationPart } from './endpoint-path';
import { setRequestContext } from './request-context';

const METHODS: readonly EndpointMethod[] = ['get', 'post', 'put', 'patch', 'delete'];

type Handle = (this: unknown, ...args: unknown[]) => unknown;

/** The parts of an Express 4 or 5 router layer this reads. */
interface Layer {
  handle: Handle;
  route?: { path: unknown; methods: Record<string, boolean>; stack: Layer[] };
  /** Express 5: a `use` layer without a path. */
  slash?: boolean;
  /** Express 4 only (Express 5 layers have matchers): `fast_slash` marks a `use` layer without a path. */
  regexp?: { fast_slash?: boolean };
}

/** Passes the rejection of a handler's promise to next(), as Express 5 does. */
function settle(result: unknown, next: unknown): unknown {
  if (result && typeof (result as Promise<unknown>).then === 'function') (result as Promise<unknown>).then(undefined, next as (e: unknown) => void);
  return result;
}

/**
 * Express 4 ignores the promise an async handler returns: a rejection would leave the request hanging and
 * could end the host process. Its handlers, error handlers included, are wrapped to pass a rejection to
 * next(), as Express 5 does.
 */
function forwardRejections(layers: Layer[]): void {
  for (const layer of layers) {
    if (!('regexp' in layer)) return;
    if (layer.route) forwardRejections(layer.route.stack);
    const handle = layer.handle;
    // Express tells error handlers (four arguments) from the others by their arity, so each wrapper keeps
    // it; one of more arguments is never called.
    if (handle.length > 4) continue;
    layer.handle =
      handle.length === 4
        ? function (this: unknown, error: unknown, req: unknown, res: unknown, next: unknown) {
            return settle(handle.call(this, error, req, res, next), next);
          }
        : function (this: unknown, req: unknown, res: unknown, next: unknown) {
            return settle(handle.call(this, req, res, next), next);
          };
  }
}

/** A route the function registered, or why it cannot be listed. */
type Found = { method: EndpointMethod; path: string } | { problem: string };

function describePath(path: unknown): string {
  return typeof path === 'string' ? `"${path}"` : Array.isArray(path) ? 'an array of paths' : String(path);
}

function readLayer(layer: Layer, source: string): Found[] {
  if (!layer.route) {
    if (layer.slash === true || layer.regexp?.fast_slash === true) return [];
    return [{ problem: `${source}: router.use() with a path cannot be listed as routes; register each route with router.get/post/... or use router.use() without a path` }];
  }
  const { path, methods } = layer.route;
  const why = checkEndpointPath(path);
  if (why) return [{ problem: `${source}: route path ${describePath(path)} ${why}` }];
  const names = Object.keys(methods).filter((m) => methods[m]);
  return names.flatMap((name): Found[] => {
    if (name === '_all') return METHODS.map((method) => ({ method, path: path as string }));
    if ((METHODS as readonly string[]).includes(name)) return [{ method: name as EndpointMethod, path: path as string }];
    return [{ problem: `${source}: method ${name.toUpperCase()} of route "${String(path)}" is not supported (use get, post, put, patch, delete or all)` }];
  });
}

/**
 * Calls the host's function and lists its routes. Problems (wildcard or pattern paths, `use` with a path,
 * other methods) are returned, not thrown, so they are reported with every other config problem.
 * `reader` reads the JSON body of its routes in the parse phase.
 */
export function functionEndpointRoutes(
  runtime: Runtime,
  endpoint: EndpointFunction,
  index: number,
  local: LocalApi,
): { routes: RouteDef[]; reader?: RequestHandler; problems: string[] } {
  const source = `endpoints[${index}]`;
  const router: Router = express.Router();
  // Typed to return nothing, but a host's function may return anything: a promise is a mistake reported below.
  const register: (...args: Parameters<EndpointFunction>) => unknown = endpoint;
  let returned: unknown;
  try {
    returned = register(router, { logger: runtime.config.logger });
  } catch (error) {
    return { routes: [], problems: [`${source}: the function threw while registering routes: ${error instanceof Error ? error.message : String(error)}`] };
  }
  // A then method makes it a promise, as far as registering routes goes.
  if (returned && typeof (returned as Promise<unknown>).then === 'function') {
    // Its rejection is reported here, not left unhandled.
    (returned as Promise<unknown>).then(undefined, () => undefined);
    return { routes: [], problems: [`${source}: the function must register its routes synchronously (it returned a promise; routes added after an await would be missed)`] };
  }
  const problems: string[] = [];
  const seen = new Map<string, { method: EndpointMethod; path: string }>();
  for (const layer of router.stack as unknown as Layer[]) {
    for (const found of readLayer(layer, source)) {
      if ('problem' in found) problems.push(found.problem);
      // A path registered twice (two router.get('/x') layers) is one table entry: the router runs both.
      else seen.set(`${found.method} ${found.path}`, found);
    }
  }
  if (seen.size === 0 && problems.length === 0) runtime.config.logger.warn(`content-router: ${source} registered no routes`);
  forwardRejections(router.stack as unknown as Layer[]);

  // Bodies as a plain Express app would have them: JSON parsed (bounded), any other type left to the handler.
  // Read in the parse phase, before the request deadline starts; a parser of the router's own then finds
  // the body read and passes.
  const reader = express.json({ limit: runtime.config.bodyLimit, type: JSON_TYPES });
  // The caller is held to the scope of the route's method (read for GET and HEAD, write otherwise).
  const run = (method: EndpointMethod): RequestHandler => {
    const scope = endpointScope(method);
    return (req, res, next) => {
      endpointCaller(runtime, req, scope).then((caller) => {
        setRequestContext(req, local, caller.user);
        const restore = hideHostUser(req, caller);
        // Given back once the router answered, or when it hands the request on (below).
        if (caller.missing) res.once('finish', restore);
        // The router's errors and its plain next() (the request handed on to the host) both leave here.
        router(req, res, (routerError?: unknown) => {
          restore();
          next(scopedError(caller, routerError));
        });
      }, next);
    };
  };

  const routes = [...seen.values()].map(({ method, path }): RouteDef => {
    const handle = run(method);
    return {
      method,
      path,
      operationId: `endpoints.${method}.${pathToOperationPart(path)}`,
      summary: `${method.toUpperCase()} ${path}`,
      tags: ['endpoints'],
      auth: 'optional',
      // What the router itself may refuse before the handler runs (the body, the caller), and what a handler
      // may throw for those reasons; any other problem it throws falls to the document's default answer.
      responses: {
        200: { description: 'Answered by the custom endpoint', shape: { kind: 'schema', schema: {} } },
        400: { description: 'A JSON body that is not valid JSON, or input the handler refused' },
        ...callerResponses(endpointScope(method)),
        413: { description: 'A JSON body larger than the body limit' },
      },
      source,
      // Runs the whole router, so its router.use() middleware and error handlers apply as in plain Express;
      // an error it passes on reaches the router's problem+json handler, a plain next() the host.
      handler: (req, res, next) => {
        if (!next) throw new TypeError(`${source}: function endpoint routes run only under the route dispatcher`);
        handle(req, res, next);
      },
    };
  });
  return { routes, reader, problems };
}
