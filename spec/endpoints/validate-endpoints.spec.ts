// Start-up checks of `endpoints[]`: each problem named by its path, good endpoints accepted.
import type { ContentConfig } from '../../lib';
import { parseEndpointsOptions } from '../../lib/endpoints/validate-endpoints';

const validateEndpoints = (config: ContentConfig) => parseEndpointsOptions(config).problems;
import { checkEndpointPath } from '../../lib/endpoints/endpoint-path';

const db = { uri: 'mongodb://127.0.0.1:1/never' };
const handler = () => null;

function problemsOf(endpoints: unknown[], extra: Partial<ContentConfig> = {}): string[] {
  return validateEndpoints({ db, ...extra, endpoints } as ContentConfig);
}

describe('parseEndpointsOptions', () => {
  it('accepts functions and complete object endpoints', () => {
    expect(
      problemsOf([
        () => undefined,
        { path: '/contact', method: 'post', handler, detail: { summary: 's', description: 'd', tags: ['t'] } },
        {
          path: '/posts/:id/attach',
          method: 'put',
          handler,
          schema: {
            name: 'Attachment',
            body: { type: 'object', properties: { title: { type: 'string', maxLength: 9 }, n: { type: 'number', integer: true }, f: { type: 'file', maxSize: 10 } }, required: ['f'] },
            response: { type: 'object' },
          },
        },
        { path: '/stats/', method: 'get', handler, schema: { name: 'Stats', response: { type: 'object' } } },
        { path: '/admin/reindex', method: 'post', handler, scope: 'admin' },
        { path: '/search', method: 'post', handler, scope: 'read' },
        { path: '/mail', method: 'post', handler, sideEffects: true },
        { path: '/mail', method: 'patch', handler, sideEffects: false },
      ]),
    ).toEqual([]);
  });

  it('needs an array', () => {
    expect(validateEndpoints({ db, endpoints: {} } as never)).toEqual(['endpoints: must be an array of functions and endpoint objects']);
  });

  it.each<[string, unknown, string]>([
    ['not a function or object', 42, 'endpoints[0]: must be a function'],
    ['a bad method', { path: '/a', method: 'fetch', handler }, 'endpoints[0].method: must be one of get, post, put, patch, delete'],
    ['a path without a slash', { path: 'a', method: 'get', handler }, 'endpoints[0].path: must start with "/"'],
    ['a wildcard path', { path: '/files/*rest', method: 'get', handler }, 'endpoints[0].path: must start with "/"'],
    ['a param first', { path: '/:slug', method: 'get', handler }, 'endpoints[0].path: must start with "/"'],
    ['the root', { path: '/', method: 'get', handler }, 'endpoints[0].path: must start with "/"'],
    ['a repeated param', { path: '/a/:id/b/:id', method: 'get', handler }, 'endpoints[0].path: names the parameter :id twice'],
    ['no handler', { path: '/a', method: 'get' }, 'endpoints[0].handler: must be a function'],
    ['an unknown key', { path: '/a', method: 'get', handler, auth: true }, 'endpoints[0].auth: unknown option'],
    ['a body on GET', { path: '/a', method: 'get', handler, schema: { name: 'A', body: { properties: { a: { type: 'string' } } } } }, 'endpoints[0].schema.body: a GET endpoint takes no body'],
    ['a body without a name', { path: '/a', method: 'post', handler, schema: { body: { properties: { a: { type: 'string' } } } } }, 'endpoints[0].schema.name: required with a body'],
    ['a lowercase name', { path: '/a', method: 'post', handler, schema: { name: 'contact' } }, 'endpoints[0].schema.name: must be a PascalCase identifier'],
    ['an unknown property type', { path: '/a', method: 'post', handler, schema: { name: 'A', body: { properties: { a: { type: 'object' } } } } }, 'endpoints[0].schema.body.properties.a.type: must be "string", "number", "boolean", "email", "date" or "file"'],
    ['an option of another type', { path: '/a', method: 'post', handler, schema: { name: 'A', body: { properties: { a: { type: 'number', maxLength: 3 } } } } }, 'endpoints[0].schema.body.properties.a.maxLength: unknown option for a number property'],
    ['an empty body', { path: '/a', method: 'post', handler, schema: { name: 'A', body: { properties: {} } } }, 'endpoints[0].schema.body.properties: must be an object with at least one property'],
    ['a required name that is no property', { path: '/a', method: 'post', handler, schema: { name: 'A', body: { properties: { a: { type: 'string' } }, required: ['b'] } } }, 'endpoints[0].schema.body.required: "b" is not a property'],
    ['a bad property name', { path: '/a', method: 'post', handler, schema: { name: 'A', body: { properties: { 'a-b': { type: 'string' } } } } }, 'endpoints[0].schema.body.properties.a-b: not a valid property name'],
    ['a huge file limit', { path: '/a', method: 'post', handler, schema: { name: 'A', body: { properties: { f: { type: 'file', maxSize: 1e12 } } } } }, 'endpoints[0].schema.body.properties.f.maxSize: must be a whole number of bytes'],
    ['a response that is no object', { path: '/a', method: 'get', handler, schema: { name: 'A', response: 'json' } }, 'endpoints[0].schema.response: must be a JSON Schema object'],
    ['bad tags', { path: '/a', method: 'get', handler, detail: { tags: 'x' } }, 'endpoints[0].detail.tags: must be an array of non-empty strings'],
    ['an unknown detail key', { path: '/a', method: 'get', handler, detail: { summry: 'x' } }, 'endpoints[0].detail.summry: unknown option'],
    ['an unknown scope', { path: '/a', method: 'get', handler, scope: 'owner' }, 'endpoints[0].scope: must be one of read, write, admin'],
    ['a list of scopes', { path: '/a', method: 'get', handler, scope: ['read', 'write'] }, 'endpoints[0].scope: must be one of read, write, admin'],
    ['sideEffects not a boolean', { path: '/a', method: 'post', handler, sideEffects: 'yes' }, 'endpoints[0].sideEffects: must be true or false'],
    ['sideEffects on a method without Idempotency-Key', { path: '/a', method: 'put', handler, sideEffects: true }, 'endpoints[0].sideEffects: only post and patch endpoints take an Idempotency-Key'],
  ])('reports %s', (_name, endpoint, expected) => {
    const problems = problemsOf([endpoint]);
    expect(problems).toEqual(expect.arrayContaining([expect.stringContaining(expected)]));
  });

  it('refuses a body name used twice or already taken by a generated type', () => {
    const body = { properties: { a: { type: 'string' } } };
    const problems = problemsOf(
      [
        { path: '/a', method: 'post', handler, schema: { name: 'Form', body } },
        { path: '/b', method: 'post', handler, schema: { name: 'Form', body } },
        { path: '/c', method: 'post', handler, schema: { name: 'PostCreate', body } },
        { path: '/d', method: 'post', handler, schema: { name: 'UploadedFile', body } },
      ],
      { collections: [{ slug: 'posts', fields: {} }] },
    );
    expect(problems).toEqual([
      'endpoints[1].schema.name: "Form" is already the generated type of endpoints[0]',
      'endpoints[2].schema.name: "PostCreate" is already the generated type of collection "posts"',
      'endpoints[3].schema.name: "UploadedFile" is already the generated type of a helper type',
    ]);
  });
});

describe('checkEndpointPath', () => {
  it.each(['/a', '/a/', '/posts/:id', '/posts/:id/related', '/v1.0/a-b_c~d'])('accepts %s', (path) => {
    expect(checkEndpointPath(path)).toBeUndefined();
  });
  it.each(['', 'a', '/', '//', '/a//b', '/:id', '/a/*', '/a/*rest', '/a/{b}', '/a/:b?', '/a/(.*)', '/a/:1', '/a b'])('refuses %j', (path) => {
    expect(checkEndpointPath(path)).toBeDefined();
  });
});
