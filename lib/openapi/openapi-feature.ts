// The API's documentation as a feature: `/docs/openapi.json` (the OpenAPI 3.1 document of the final route
// table, built once per mount path, or with `docs.perCaller` once per mount path and distinct set of rights)
// and Swagger UI at `/docs`, public by default or for authenticated callers only.
import { representationTag } from '../operations/precondition';
import type { Request } from 'express';
import { UnauthorizedError } from '../errors';
import type { Feature } from '../http/feature';
import type { Lifecycle } from '../http/lifecycle';
import { requestUser } from '../http/request-user';
import type { RouteCaller, RouteDef, RouteResponse } from '../http/route-table';
import { describeSchema } from '../operations/describe-schema';
import { callerView } from '../operations/field-view';
import type { Runtime } from '../operations/runtime';
import { type DocumentSource, buildOpenApiDocument } from './build-document';
import { callerSource, reachKey, withoutUnusedSchemas } from './caller-document';
import { type DocsFeatureOptions, parseDocsOptions } from './docs-options';
import { createSwaggerUi } from './swagger-ui';

/** Documents kept per mount path; a host mounting at many paths (`/:tenant/api`) cannot grow it without bound. */
const MAX_CACHED_DOCUMENTS = 16;
/**
 * Per-caller documents kept, by mount path and set of rights: rules answering per user (a where naming the
 * user's id is still `'some'`) give few distinct sets, and one past the bound is built again, never wrong.
 */
const MAX_CALLER_DOCUMENTS = 64;

/** Keeps serialized documents by key, at most `max`, the least recently used dropped first. */
function createDocumentCache(max: number): (key: string, build: () => string) => string {
  const cache = new Map<string, string>();
  return (key, build) => {
    let json = cache.get(key);
    if (json === undefined) {
      json = build();
      const oldest = cache.keys().next();
      if (cache.size >= max && !oldest.done) cache.delete(oldest.value);
    } else cache.delete(key);
    cache.set(key, json);
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
    /** The operations whose own `reach` refuses this caller outright. */
    const refusedRoutes = async (caller: RouteCaller): Promise<Set<string>> => {
      const judged = table.filter((route) => route.reach && !route.undocumented);
      // eslint-disable-next-line @typescript-eslint/no-non-null-assertion -- only routes with a reach
      const answers = await Promise.all(judged.map((route) => route.reach!(caller)));
      return new Set(judged.filter((_, index) => !answers[index]).map((route) => route.operationId));
    };
    const documents = createDocumentCache(options.perCaller ? MAX_CALLER_DOCUMENTS : MAX_CACHED_DOCUMENTS);
    /** The document this request is served: the whole API's, or with perCaller the one of what its caller may reach. */
    const documentFor = async (req: Request): Promise<string> => {
      const serverUrl = req.baseUrl;
      if (!options.perCaller) return documents(serverUrl, () => JSON.stringify(buildOpenApiDocument(source(), serverUrl)));
      const user = await requestUser(runtime, req);
      const caller = { runtime, user, req };
      const [schema, view, refused] = await Promise.all([describeSchema(caller), callerView(caller), refusedRoutes({ user, req })]);
      const reach = { schema, view, signedIn: user !== null, refused };
      const build = () => JSON.stringify(withoutUnusedSchemas(buildOpenApiDocument(callerSource(runtime, source(), reach), serverUrl)));
      return documents(`${serverUrl}\n${reachKey(reach)}`, build);
    };
    const ui = createSwaggerUi();

    const guard = async (req: Request) => {
      if (options.public) return;
      if (!(await requestUser(runtime, req))) throw new UnauthorizedError('The API documentation is for authenticated callers.');
    };
    const errors: Record<number, RouteResponse> = options.public ? {} : { 401: { description: 'Not authenticated (docs.public is false)' } };
    // Per caller, a credential is checked even on public docs: a bad one is the 401 it is on every route.
    const documentErrors: Record<number, RouteResponse> = options.perCaller && options.public ? { 401: { description: 'The credential presented is not valid' } } : errors;
    // Public docs never touch the database: served during an outage too. Guarded ones check a credential,
    // which may need it.
    const common = {
      tags: ['docs'],
      auth: options.public ? ('none' as const) : ('required' as const),
      config: options.public ? { database: false } : undefined,
    };
    // A per-caller document depends on the credential, which may need the database to check.
    const perCaller = options.perCaller ? { auth: options.public ? ('optional' as const) : ('required' as const), config: undefined } : {};

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
        ...perCaller,
        path: '/docs/openapi.json',
        operationId: 'docs.openapi',
        summary: options.perCaller ? 'Get the OpenAPI 3.1 document of what the caller may reach in this API' : 'Get the OpenAPI 3.1 document of this API',
        responses: {
          200: { description: 'The OpenAPI document', shape: { kind: 'schema', schema: { type: 'object', description: 'An OpenAPI 3.1 document' } } },
          ...documentErrors,
        },
        async handler(req, res) {
          await guard(req);
          const text = await documentFor(req);
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
