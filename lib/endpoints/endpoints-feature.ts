// Custom endpoints as a feature: every entry of `endpoints[]`, a function or an object, becomes entries of
// the one route table, so they are dispatched, collision-checked and documented like the generated routes.
import type { RequestHandler } from 'express';
import { ConfigError } from '../errors';
import type { Feature } from '../http/feature';
import type { RouteDef } from '../http/route-table';
import { createLocalApi } from '../local/local-api';
import { functionEndpointRoutes } from './function-endpoint';
import { objectEndpointRoute } from './object-endpoint';
import { type EndpointEntries, parseEndpointsOptions } from './validate-endpoints';

/** `endpoints: [(router, context) => ..., { path, method, handler, schema?, detail? }]` (docs/endpoints.md). */
export const endpointsFeature: Feature<EndpointEntries> = {
  name: 'endpoints',
  options: parseEndpointsOptions,
  create(runtime, lifecycle, endpoints) {
    if (endpoints.length === 0) return undefined;
    const local = createLocalApi(runtime);
    const routes: RouteDef[] = [];
    const readers = new Map<RouteDef, RequestHandler>();
    const problems: string[] = [];
    endpoints.forEach((endpoint, index) => {
      if (typeof endpoint === 'function') {
        const found = functionEndpointRoutes(runtime, endpoint, index, local);
        routes.push(...found.routes);
        problems.push(...found.problems);
        const { reader } = found;
        if (reader) for (const route of found.routes) readers.set(route, reader);
      } else {
        const { route, reader } = objectEndpointRoute(runtime, endpoint, index, local);
        routes.push(route);
        if (reader) readers.set(route, reader);
      }
    });
    if (problems.length) throw new ConfigError(problems);
    // Forms and function endpoints' JSON bodies are read in the parse phase, as JSON bodies are by the
    // core's parser, so the request deadline starts only once the body is in.
    lifecycle.parse.push((route) => readers.get(route));
    return { routes };
  },
};
