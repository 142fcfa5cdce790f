// The API's documentation as a feature: `/docs/openapi.json` (the OpenAPI 3.1 document of the final route
// table, built once per mount path) and Swagger UI at `/docs`, public by default or for authenticated callers only.
import { representationTag } from '../operations/precondition';
import type { Request } from 'express';
import { UnauthorizedError } from '../errors';
import type { Feature } from '../http/feature';
import type { Lifecycle } from '../http/lifecycle';
import { requestUser } from '../http/request-user';
import type { RouteDef, RouteResponse } from '../http/route-table';
import type { Runtime } from '../operations/runtime';
import { type DocumentSource, buildOpenApiDocument } from './build-document';
import { type DocsFeatureOptions, parseDocsOptions } from './docs-options';
import { createSwaggerUi } from './swagger-ui';

/** Documents kept per mount path; a host mounting at many paths (`/:tenant/api`) cannot grow it without bound. */
const MAX_CACHED_DOCUMENTS = 16;

/** Keeps the serialized document per `req.baseUrl`, oldest dropped first. */
function createDocumentCache(build: (serverUrl: string) => string): (serverUrl: string) => string {
  const cache = new Map<string, string>();
  return (serverUrl) => {
    let json = cache.get(serverUrl);
    if (json === undefined) {
      json = build(serverUrl);
      const oldest = cache.keys().next();
      if (cache.size >= MAX_CACHED_DOCUMENTS && !oldest.done) cache.delete(oldest.value);
      cache.set(serverUrl, json);
    }
    return json;
  };
}

/** `/docs`, `/docs/openapi.json` and `/docs/<asset>`, unless `docs: false`. */
export const openapiFeature: Feature<DocsFeatureOptions | undefined> = {
  name: 'openapi',
  options: parseDocsOptions,
  create(runtime: Runtime, lifecycle: Lifecycle, options) {
    if (!options?.enabled) return undefined;

    // The whole table, this feature's routes included, collected as routes are added (onRoute); the
    // document is built from it on its first request, once every route is in.
    const table: RouteDef[] = [];
    lifecycle.onRoute.push((route) => table.push(route));
    const source = (): DocumentSource => ({
      registry: runtime.registry,
      globals: [...runtime.globals.values()].map((g) => g.descriptor),
      routes: table,
      query: runtime.config.query,
      rateLimit: options.rateLimit,
      hostAuth: { schemes: options.securitySchemes, security: options.security },
      challenge: runtime.config.authChallenge,
    });
    const documentAt = createDocumentCache((serverUrl) => JSON.stringify(buildOpenApiDocument(source(), serverUrl)));
    const ui = createSwaggerUi();

    const guard = async (req: Request) => {
      if (options.public) return;
      if (!(await requestUser(runtime, req))) throw new UnauthorizedError('The API documentation is for authenticated callers.');
    };
    const errors: Record<number, RouteResponse> = options.public ? {} : { 401: { description: 'Not authenticated (docs.public is false)' } };
    // Public docs never touch the database: served during an outage too. Guarded ones check a credential,
    // which may need it.
    const common = {
      tags: ['docs'],
      auth: options.public ? ('none' as const) : ('required' as const),
      config: options.public ? { database: false } : undefined,
    };

    const routes: RouteDef[] = [
      {
        ...common,
        method: 'get',
        path: '/docs',
        operationId: 'docs.ui',
        summary: 'Show Swagger UI',
        responses: {
          200: { description: 'The Swagger UI page', contentType: 'text/html' },
          302: { description: 'Redirect to the same path with a trailing slash (the page loads its assets relatively)' },
          ...errors,
        },
        async handler(req, res) {
          await guard(req);
          if (!req.path.endsWith('/')) {
            const query = req.originalUrl.indexOf('?');
            // Relative, so it is right behind proxies that rewrite the path prefix too.
            res.redirect(302, `docs/${query === -1 ? '' : req.originalUrl.slice(query)}`);
            return;
          }
          ui.page(req, res);
        },
      },
      {
        ...common,
        method: 'get',
        path: '/docs/openapi.json',
        operationId: 'docs.openapi',
        summary: 'Get the OpenAPI 3.1 document of this API',
        responses: {
          200: { description: 'The OpenAPI document', shape: { kind: 'schema', schema: { type: 'object', description: 'An OpenAPI 3.1 document' } } },
          ...errors,
        },
        async handler(req, res) {
          await guard(req);
          const text = documentAt(req.baseUrl);
          // The router's own validator of the document, not one of Express's (json-answer.ts).
          res.type('application/json').set('ETag', representationTag(text)).send(text);
        },
      },
      {
        ...common,
        method: 'get',
        path: '/docs/:asset',
        operationId: 'docs.asset',
        summary: 'Get a Swagger UI asset (script, stylesheet, icon)',
        responses: { 200: { description: 'The file', contentType: '*/*' }, ...errors, 404: { description: 'No such asset' } },
        async handler(req, res) {
          await guard(req);
          await ui.asset(req, res, String(req.params.asset));
        },
      },
    ];
    return { routes };
  },
};
