// Custom endpoints as route-table entries: what the dispatcher and the OpenAPI document read from them.
import express from 'express';
import type { EndpointObject } from '../../lib';
import { functionEndpointRoutes } from '../../lib/endpoints/function-endpoint';
import { objectEndpointRoute } from '../../lib/endpoints/object-endpoint';
import type { LocalApi } from '../../lib/local/local-api';
import type { Runtime } from '../../lib/operations/runtime';

const warnings: unknown[][] = [];
const runtime = {
  config: { bodyLimit: '1mb', logger: { error: () => undefined, warn: (...args: unknown[]) => warnings.push(args), info: () => undefined } },
} as unknown as Runtime;
const local = {} as LocalApi;
const handler = () => null;

describe('object endpoint routes', () => {
  it('carry method, path, a stable operationId, detail, the body schema and the response schema', () => {
    const endpoint: EndpointObject = {
      path: '/posts/:id/contact',
      method: 'post',
      handler,
      schema: {
        name: 'ContactForm',
        body: { properties: { name: { type: 'string', description: 'Who', maxLength: 10 }, age: { type: 'number', integer: true } }, required: ['name'] },
        response: { type: 'object', properties: { ok: { type: 'boolean' } } },
      },
      detail: { summary: 'Contact', description: 'Sends a message', tags: ['contact'] },
    };
    const { route, reader } = objectEndpointRoute(runtime, endpoint, 3, local);
    expect(reader).toBeUndefined();
    expect(route).toMatchObject({
      method: 'post',
      path: '/posts/:id/contact',
      operationId: 'endpoints.post.posts.by-id.contact',
      summary: 'Contact',
      description: 'Sends a message',
      tags: ['contact'],
      auth: 'optional',
      source: 'endpoints[3]',
      body: {
        type: 'json',
        required: true,
        shape: {
          kind: 'schema',
          schema: {
            type: 'object',
            title: 'ContactForm',
            properties: { name: { type: 'string', description: 'Who', maxLength: 10 }, age: { type: 'integer' } },
            required: ['name'],
            additionalProperties: false,
          },
        },
      },
    });
    expect(route.responses[200].shape).toEqual({ kind: 'schema', schema: { type: 'object', properties: { ok: { type: 'boolean' } } } });
    expect(Object.keys(route.responses).sort()).toEqual(['200', '204', '400', '401', '403', '413', '415']);
  });

  it('declare a multipart body (files as binary strings) and come with its reader', () => {
    const { route, reader } = objectEndpointRoute(
      runtime,
      { path: '/upload-form', method: 'put', handler, schema: { name: 'UploadForm', body: { properties: { file: { type: 'file' } } } } },
      0,
      local,
    );
    expect(typeof reader).toBe('function');
    expect(route.body).toEqual({
      type: 'multipart',
      required: false,
      shape: { kind: 'schema', schema: { type: 'object', title: 'UploadForm', properties: { file: { type: 'string', format: 'binary' } }, additionalProperties: false } },
    });
  });

  it('default to the method and path as summary, the endpoints tag, and no body on GET', () => {
    const { route } = objectEndpointRoute(runtime, { path: '/stats', method: 'get', handler }, 1, local);
    expect(route).toMatchObject({ summary: 'GET /stats', tags: ['endpoints'], operationId: 'endpoints.get.stats' });
    expect(route.body).toBeUndefined();
    expect(route.description).toBeUndefined();
    expect(Object.keys(route.responses).sort()).toEqual(['200', '204', '401', '403']);
  });

  it('list the 4xx every endpoint can answer: 401 for a bad credential, 403 insufficient_scope for a key without its scope', () => {
    for (const [method, scope] of [['get', 'read'], ['delete', 'write'], ['post', 'write']] as const) {
      const { route } = objectEndpointRoute(runtime, { path: '/stats', method, handler }, 1, local);
      expect(route.responses[401].description).toMatch(/credential/);
      expect(route.responses[403].description).toMatch(new RegExp(`without the \`${scope}\` scope.*insufficient_scope`));
    }
  });

  it('state a declared scope in the description (after detail.description) and a 403 answer', () => {
    const { route } = objectEndpointRoute(runtime, { path: '/reindex', method: 'post', handler, scope: 'admin', detail: { description: 'Rebuilds the index.' } }, 0, local);
    expect(route.description).toBe('Rebuilds the index.\n\nAPI keys need the `admin` scope; a key without it acts as an anonymous caller.');
    expect(route.responses[403].description).toMatch(/without the `admin` scope/);
    expect(objectEndpointRoute(runtime, { path: '/search', method: 'post', handler, scope: 'read' }, 0, local).route.description).toMatch(/^API keys need the `read` scope/);
  });
});

describe('function endpoint routes', () => {
  it('list every route of the router once per method, `all` as every method', () => {
    const { routes, problems } = functionEndpointRoutes(
      runtime,
      (router) => {
        router.use(express.json());
        router.get('/posts/published', handler);
        router.get('/posts/published', handler);
        router.route('/things/:id').get(handler).patch(handler);
        router.all('/any', handler);
      },
      2,
      local,
    );
    expect(problems).toEqual([]);
    // Whatever the handler does: a body that is not JSON, a bad credential, a key without the method's scope.
    for (const route of routes) {
      expect(Object.keys(route.responses).sort()).toEqual(['200', '400', '401', '403', '413']);
      expect(route.responses[403].description).toMatch(route.method === 'get' ? /without the `read` scope/ : /without the `write` scope/);
    }
    expect(routes.map((r) => `${r.method} ${r.path} ${r.operationId} ${r.source}`)).toEqual([
      'get /posts/published endpoints.get.posts.published endpoints[2]',
      'get /things/:id endpoints.get.things.by-id endpoints[2]',
      'patch /things/:id endpoints.patch.things.by-id endpoints[2]',
      'get /any endpoints.get.any endpoints[2]',
      'post /any endpoints.post.any endpoints[2]',
      'put /any endpoints.put.any endpoints[2]',
      'patch /any endpoints.patch.any endpoints[2]',
      'delete /any endpoints.delete.any endpoints[2]',
    ]);
  });

  it('report what cannot be listed, and a function that throws', () => {
    const listed = functionEndpointRoutes(
      runtime,
      (router) => {
        router.options('/a', handler);
        router.get('/:slug', handler);
      },
      0,
      local,
    );
    expect(listed.problems).toEqual([
      'endpoints[0]: method OPTIONS of route "/a" is not supported (use get, post, put, patch, delete or all)',
      expect.stringMatching(/^endpoints\[0\]: route path "\/:slug" must start with "\/"/),
    ]);
    const threw = functionEndpointRoutes(runtime, () => { throw new Error('oops'); }, 4, local);
    expect(threw.problems).toEqual(['endpoints[4]: the function threw while registering routes: oops']);
    const asynchronous = functionEndpointRoutes(runtime, (async (router: express.Router) => { router.get('/late', handler); }) as never, 6, local);
    expect(asynchronous.problems).toEqual([expect.stringMatching(/^endpoints\[6\]: the function must register its routes synchronously/)]);
  });

  it('warn about a function that registers nothing', () => {
    warnings.length = 0;
    expect(functionEndpointRoutes(runtime, () => undefined, 5, local).routes).toEqual([]);
    expect(warnings).toEqual([['content-router: endpoints[5] registered no routes']]);
  });
});
