// What a caller's document is built from, without a router: the routes its rights do not refuse outright,
// one key per distinct set of rights, and the schemas no remaining operation uses dropped.
import type { OpenAPIObject } from 'openapi3-ts/oas31';
import type { CallerSchema, SchemaCollection } from '../../lib/config/caller-schema';
import type { RouteDef, RouteRule } from '../../lib/http/route-table';
import type { FieldView } from '../../lib/operations/field-view';
import type { Runtime } from '../../lib/operations/runtime';
import type { DocumentSource } from '../../lib/openapi/build-document';
import { type CallerReach, callerSource, reachKey, withoutUnusedSchemas } from '../../lib/openapi/caller-document';

const route = (operationId: string, rule?: RouteRule, auth: RouteDef['auth'] = 'optional'): RouteDef => ({
  method: 'get',
  path: `/${operationId}`,
  operationId,
  summary: operationId,
  tags: [],
  auth,
  ...(rule && { rule }),
  responses: {},
  handler: () => undefined,
});

const collection = (slug: string, access: Partial<SchemaCollection['access']>): SchemaCollection => ({
  slug,
  auth: false,
  softDelete: false,
  requireIfMatch: false,
  access: { read: false, create: false, update: false, delete: false, ...access },
  fields: [],
});

const view: FieldView = { key: '', registry: new Map(), of: () => ({ descriptor: undefined as never, serialize: undefined as never, unreadable: new Set() }) };
const runtime = { globals: new Map() } as unknown as Runtime;

function reachableIds(schema: CallerSchema, routes: RouteDef[], signedIn = true): string[] {
  const source: DocumentSource = { registry: new Map(), globals: [], routes, query: {} as DocumentSource['query'] };
  return callerSource(runtime, source, { schema, view, signedIn }).routes.map((r) => r.operationId);
}

describe('callerSource', () => {
  const routes = [
    route('posts.list', { op: 'read', slug: 'posts' }),
    route('posts.create', { op: 'create', slug: 'posts' }),
    route('posts.update', { op: 'update', slug: 'posts' }),
    route('posts.restoreVersion', { op: ['readVersions', 'update'], slug: 'posts' }),
    route('secrets.list', { op: 'read', slug: 'secrets' }),
    route('globals.site.update', { op: 'update', slug: 'site', global: true }),
    route('users.me', undefined, 'required'),
    route('users.login', undefined, 'none'),
  ];
  const schema: CallerSchema = {
    collections: [collection('posts', { read: true, create: 'some', update: 'some', readVersions: false })],
    globals: [{ slug: 'site', access: { read: true, update: false }, fields: [] }],
  };

  it('keeps a route whose rule allows every record or some, drops one a rule refuses or on a collection the caller may not use', () => {
    expect(reachableIds(schema, routes)).toEqual(['posts.list', 'posts.create', 'posts.update', 'users.me', 'users.login']);
  });

  it('drops the routes that need a signed-in caller for an anonymous one', () => {
    expect(reachableIds(schema, routes, false)).toEqual(['posts.list', 'posts.create', 'posts.update', 'users.login']);
  });
});

describe('reachKey', () => {
  const reach = (read: boolean | 'some', viewKey = ''): CallerReach => ({
    schema: { collections: [collection('posts', { read })], globals: [] },
    view: { ...view, key: viewKey },
    signedIn: true,
  });

  it('is the same for the same rights and fields, and differs when either does', () => {
    expect(reachKey(reach('some'))).toBe(reachKey(reach('some')));
    expect(reachKey(reach('some'))).not.toBe(reachKey(reach(true)));
    expect(reachKey(reach(true))).not.toBe(reachKey(reach(true, 'posts.notes')));
    expect(reachKey(reach(true))).not.toBe(reachKey({ ...reach(true), signedIn: false }));
  });

  it('differs when the fields the caller may not set do (field write rules)', () => {
    const withField = (readOnlyOnUpdate?: boolean): CallerReach => {
      const posts = { ...collection('posts', { read: true, update: true }), fields: [{ name: 'slug', type: 'text', required: false, unique: false, ...(readOnlyOnUpdate && { readOnlyOnUpdate }) }] };
      return { schema: { collections: [posts], globals: [] }, view, signedIn: true };
    };
    expect(reachKey(withField())).toBe(reachKey(withField()));
    expect(reachKey(withField())).not.toBe(reachKey(withField(true)));
  });
});

describe('withoutUnusedSchemas', () => {
  const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
  const document = {
    openapi: '3.1.0',
    info: { title: 't', version: '1' },
    paths: { '/posts': { get: { responses: { 200: { description: 'ok', content: { 'application/json': { schema: ref('PostList') } } } } } } },
    components: {
      schemas: {
        Problem: { type: 'object' },
        PostList: { type: 'object', properties: { data: { type: 'array', items: ref('Post') } } },
        Post: { type: 'object', properties: { author: { anyOf: [ref('User'), { type: 'string' }] } } },
        User: { type: 'object' },
        PostCreate: { type: 'object', properties: { author: ref('User') } },
      },
    },
  } as unknown as OpenAPIObject;

  it('keeps what an operation uses, through other schemas too, and drops the rest', () => {
    expect(Object.keys(withoutUnusedSchemas(document).components?.schemas ?? {}).sort()).toEqual(['Post', 'PostList', 'User']);
  });
});
