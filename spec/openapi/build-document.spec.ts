// The generator alone, without HTTP or a database: descriptors and a route table in, an OpenAPI 3.1 document
// out. Routes of any feature (a multipart upload, a literal schema) are described from their declarations.
import type { OperationObject, ParameterObject, SchemaObject } from 'openapi3-ts/oas31';
import type { CollectionConfig } from '../../lib';
import type { QueryOptions } from '../../lib/config/resolve-config';
import type { RouteDef } from '../../lib/http/route-table';
import { type DocumentSource, buildOpenApiDocument } from '../../lib/openapi/build-document';
import { queryParameters } from '../../lib/openapi/query-parameters';
import { describeCollection, describeCollections, describeGlobal } from '../../lib/schema/describe-collection';
import { validateOpenApiDocument } from './openapi-validators';

const QUERY: QueryOptions = { listFormat: 'data', maxDepth: 2, overLimit: 'reject', maxRelationConditions: 10, maxRelationDepth: 3, maxRelationIds: 10_000 };
const handler = () => undefined;

const COLLECTIONS: CollectionConfig[] = [
  { slug: 'users', auth: true, fields: { secret: { type: 'text', hidden: true } } },
  {
    slug: 'blog-posts',
    pagination: { defaultLimit: 5, maxLimit: 50 },
    fields: {
      title: { type: 'text', required: true, minLength: 1 },
      author: { type: 'relationship', relationTo: 'users', required: true },
      editors: { type: 'relationship', relationTo: 'users', hasMany: true },
      when: { type: 'date' },
      labels: { type: 'select', options: ['a', 'b'], hasMany: true },
      cover: { type: 'upload' },
      gallery: { type: 'upload', hasMany: true },
    },
  },
  { slug: 'blog_posts', fields: {} },
];

function route(partial: Partial<RouteDef> & Pick<RouteDef, 'method' | 'path' | 'operationId'>): RouteDef {
  return { summary: partial.operationId, tags: ['t'], auth: 'optional', responses: { 200: { description: 'ok' } }, handler, ...partial };
}

const ROUTES: RouteDef[] = [
  route({ method: 'get', path: '/blog-posts', operationId: 'blog-posts.list', query: 'list', responses: { 200: { description: 'page', shape: { kind: 'list', slug: 'blog-posts' } }, 400: { description: 'bad' } } }),
  route({ method: 'get', path: '/blog-posts/:id', operationId: 'blog-posts.get', query: 'record', responses: { 200: { description: 'one', shape: { kind: 'record', slug: 'blog-posts' } }, 404: { description: 'none' } } }),
  route({
    method: 'post',
    path: '/blog-posts',
    operationId: 'blog-posts.create',
    body: { type: 'json', required: true, shape: { kind: 'one-of', shapes: [{ kind: 'record-input', slug: 'blog-posts', mode: 'create' }, { kind: 'batch-input', slug: 'blog-posts' }] } },
    responses: { 201: { description: 'made', shape: { kind: 'one-of', shapes: [{ kind: 'record', slug: 'blog-posts' }, { kind: 'batch', slug: 'blog-posts' }] } } },
  }),
  route({ method: 'patch', path: '/blog-posts/:id', operationId: 'blog-posts.update', body: { type: 'json', required: true, shape: { kind: 'record-input', slug: 'blog-posts', mode: 'update' } } }),
  route({ method: 'get', path: '/users/me', operationId: 'users.me', auth: 'required', responses: { 200: { description: 'me', shape: { kind: 'record', slug: 'users' } }, 401: { description: 'who?' } } }),
  route({
    method: 'post',
    path: '/users/login',
    operationId: 'users.login',
    auth: 'none',
    body: { type: 'json', required: true, shape: { kind: 'schema', schema: { type: 'object' } } },
    responses: { 200: { description: 'in', shape: { kind: 'object', properties: { user: { kind: 'record', slug: 'users' }, token: { kind: 'schema', schema: { type: 'string' } } } } } },
  }),
  // Another feature's routes: a multipart upload and a file download under a parameter.
  route({
    method: 'post',
    path: '/upload',
    operationId: 'uploads.create',
    body: { type: 'multipart', required: true, shape: { kind: 'schema', schema: { type: 'object', properties: { file: { type: 'string', contentMediaType: 'application/octet-stream' } } } } },
    responses: { 201: { description: 'stored', shape: { kind: 'file' } }, 413: { description: 'too big' } },
  }),
  route({ method: 'get', path: '/uploads/:filename', operationId: 'uploads.get', query: [{ name: 'download', description: 'As attachment', schema: { type: 'boolean' } }], responses: { 200: { description: 'bytes', contentType: 'application/octet-stream' } } }),
  route({ method: 'get', path: '/globals/site', operationId: 'globals.site.get', responses: { 200: { description: 'g', shape: { kind: 'global', slug: 'site' } } } }),
  route({ method: 'patch', path: '/globals/site', operationId: 'globals.site.update', body: { type: 'json', required: true, shape: { kind: 'global-input', slug: 'site' } } }),
];

function source(overrides: Partial<DocumentSource> = {}): DocumentSource {
  return {
    registry: describeCollections(COLLECTIONS),
    globals: [describeGlobal({ slug: 'site', fields: { title: { type: 'text' }, theme: { type: 'select', options: ['light', 'dark'], default: 'light' } } })],
    routes: ROUTES,
    query: QUERY,
    challenge: 'Bearer',
    ...overrides,
  };
}

const doc = buildOpenApiDocument(source(), '/cms');
const op = (path: string, method: 'get' | 'post') => (doc.paths![path] as Record<string, OperationObject & { responses: Record<string, unknown> }>)[method];
const schemas = doc.components!.schemas as Record<string, SchemaObject>;

describe('buildOpenApiDocument', () => {
  it('is valid OpenAPI 3.1', () => {
    expect(validateOpenApiDocument(doc)).toEqual({ valid: true });
  });

  it('is pure: the same input gives the same document; servers is the mount path (/ at the root)', () => {
    expect(buildOpenApiDocument(source(), '/cms')).toEqual(doc);
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers).toEqual([expect.objectContaining({ url: '/cms' })]);
    expect(buildOpenApiDocument(source(), '').servers).toEqual([expect.objectContaining({ url: '/' })]);
  });

  it('has one operation per route, with {param} templates and the table\'s operationIds', () => {
    const ids = Object.values(doc.paths!).flatMap((item) => Object.values(item as Record<string, OperationObject>).map((o) => o.operationId));
    expect(ids.sort()).toEqual(ROUTES.map((r) => r.operationId).sort());
    expect(op('/uploads/{filename}', 'get').parameters).toEqual([
      { name: 'filename', in: 'path', required: true, schema: { type: 'string' } },
      { name: 'download', in: 'query', description: 'As attachment', schema: { type: 'boolean' } },
    ]);
  });

  it('expands query: list into every dialect\'s parameters, bounded by the collection\'s page sizes', () => {
    const params = op('/blog-posts', 'get').parameters as ParameterObject[];
    expect(params.map((p) => p.name).sort()).toEqual(
      // No includeDeleted: blog-posts has no soft delete.
      ['where', 'sort', 'limit', 'page', 'perPage', 'cursor', 'depth', 'include', 'fields', 'search', 'filter', 'count'].sort(),
    );
    expect(params.find((p) => p.name === 'where')!.description).toContain('where[title][like]=foo');
    // No `default`: Swagger UI would send it, changing the envelope or clashing with a cursor.
    expect(params.find((p) => p.name === 'limit')).toMatchObject({ schema: { type: 'integer', minimum: 1, maximum: 50 }, description: expect.stringContaining('Default 5. Above 50 is a 400.') });
    expect(params.filter((p) => 'default' in (p.schema as object))).toEqual([]);
    expect(params.find((p) => p.name === 'depth')!.schema).toEqual({ type: 'integer', minimum: 0, maximum: 2 });
    expect((op('/blog-posts/{id}', 'get').parameters as ParameterObject[]).map((p) => p.name)).toEqual(['id', 'depth', 'include', 'fields', 'includeDeleted']);
  });

  it('describes the sort a collection allows: its sortable fields, or any field', () => {
    const sortOf = (d: ReturnType<typeof buildOpenApiDocument>) =>
      ((d.paths!['/blog-posts'] as Record<string, OperationObject>).get.parameters as ParameterObject[]).find((p) => p.name === 'sort')!;
    expect(sortOf(doc).description).not.toContain('Sortable fields');
    const sortable = COLLECTIONS.map((c) => (c.slug === 'blog-posts' ? { ...c, sortable: ['when', 'title'] } : c));
    const restricted = sortOf(buildOpenApiDocument(source({ registry: describeCollections(sortable) }), '/cms'));
    expect(restricted.description).toMatch(/Default `-createdAt`\. .*Sortable fields: `when`, `title`, `createdAt`, `id`; any other is a 400\.$/);
    expect(restricted.schema).toEqual({ type: 'string' });
  });

  it('derives records and inputs from the fields: relationships as id or record, dates as date-time, hidden fields absent', () => {
    expect(schemas.BlogPosts.properties).toMatchObject({
      id: { $ref: '#/components/schemas/ObjectId' },
      author: { oneOf: [{ $ref: '#/components/schemas/ObjectId' }, { $ref: '#/components/schemas/Users' }] },
      editors: { type: ['array', 'null'], items: { oneOf: [{ $ref: '#/components/schemas/ObjectId' }, { $ref: '#/components/schemas/Users' }] } },
      when: { type: ['string', 'null'], format: 'date-time' },
      labels: { type: ['array', 'null'], items: { type: 'string', enum: ['a', 'b'] } },
      createdAt: { type: 'string', format: 'date-time' },
    });
    expect(schemas.BlogPostsCreate).toMatchObject({ required: ['title', 'author'], additionalProperties: false, properties: { title: { type: 'string', minLength: 1 }, author: { $ref: '#/components/schemas/ObjectId' } } });
    expect(schemas.BlogPostsCreate.properties).not.toHaveProperty('id');
    expect(schemas.BlogPostsUpdate).not.toHaveProperty('required');
    expect(schemas.Users.properties).not.toHaveProperty('secret');
    expect(schemas.Users.properties).not.toHaveProperty('password');
    expect(schemas.UsersCreate.properties).toHaveProperty('password', expect.objectContaining({ writeOnly: true }));
    expect(schemas.UsersCreate.properties).not.toHaveProperty('secret');
    expect(schemas.GlobalSite.properties).not.toHaveProperty('id');
  });

  it('types an upload field as an id or the FileRecord population answers, the one component POST /upload answers too', () => {
    const id = { $ref: '#/components/schemas/ObjectId' };
    const file = { $ref: '#/components/schemas/FileRecord' };
    // An id when the caller may not read the file (or nothing populated it), else the file record.
    expect(schemas.BlogPosts.properties).toMatchObject({
      cover: { anyOf: [{ oneOf: [id, file] }, { type: 'null' }] },
      gallery: { type: ['array', 'null'], items: { oneOf: [id, file] } },
    });
    expect(schemas.FileRecord).toEqual({
      type: 'object',
      description: expect.stringContaining('POST /upload'),
      properties: {
        id,
        filename: { type: 'string', description: expect.any(String) },
        originalName: { type: 'string' },
        mimeType: { type: 'string' },
        size: { type: 'integer', minimum: 0 },
        url: { type: 'string', description: expect.any(String) },
        alt: { type: ['string', 'null'] },
        createdAt: { type: 'string', format: 'date-time' },
      },
      required: ['id', 'filename', 'originalName', 'mimeType', 'size', 'url', 'alt', 'createdAt'],
      additionalProperties: false,
    });
    expect(op('/upload', 'post').responses['201']).toEqual({ description: 'stored', content: { 'application/json': { schema: file } } });
    // Writes send ids only.
    expect(schemas.BlogPostsCreate.properties).toMatchObject({ cover: { anyOf: [id, { type: 'null' }] }, gallery: { type: ['array', 'null'], items: id } });
    // Nothing uses it, so it is left out (an unused component is a lint warning); its name stays reserved.
    const plain = buildOpenApiDocument(source({ registry: describeCollections([COLLECTIONS[2], { slug: 'file-record', fields: {} }]), routes: [] }), '/api');
    expect(Object.keys(plain.components!.schemas!)).not.toContain('FileRecord');
    expect(Object.keys(plain.components!.schemas!)).toContain('FileRecord2');
  });

  it('names clashing slugs apart (blog-posts, blog_posts)', () => {
    expect(Object.keys(schemas)).toEqual(expect.arrayContaining(['BlogPosts', 'BlogPostsCreate', 'BlogPostsList', 'BlogPosts2', 'BlogPosts2Create', 'GlobalSite', 'GlobalSiteUpdate']));
  });

  it('describes bodies by kind: one-of, batches, multipart, non-JSON answers and problems', () => {
    expect(op('/blog-posts', 'post').requestBody).toEqual({
      required: true,
      content: { 'application/json': { schema: { oneOf: [{ $ref: '#/components/schemas/BlogPostsCreate' }, { $ref: '#/components/schemas/BlogPostsCreateBatch' }] } } },
    });
    expect(schemas.BlogPostsCreateBatch).toMatchObject({
      type: 'object',
      properties: { data: { type: 'array', items: { $ref: '#/components/schemas/BlogPostsCreate' }, maxItems: 1000 } },
      required: ['data'],
      additionalProperties: false,
    });
    expect(op('/upload', 'post').requestBody).toMatchObject({ content: { 'multipart/form-data': { schema: { properties: { file: { type: 'string' } } } } } });
    expect(op('/uploads/{filename}', 'get').responses['200']).toEqual({ description: 'bytes', content: { 'application/octet-stream': { schema: { type: 'string' } } } });
    expect(op('/upload', 'post').responses['413']).toEqual({
      description: 'too big',
      content: { 'application/problem+json': { schema: { allOf: [{ $ref: '#/components/schemas/Problem' }, { properties: { status: { const: 413 } } }] } } },
    });
    expect(op('/users/me', 'get').responses['401']).toMatchObject({ headers: { 'WWW-Authenticate': expect.anything() } });
    expect(op('/users/me', 'get').responses.default).toMatchObject({ content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } });
    expect(op('/blog-posts', 'get').responses['200']).toEqual({ description: 'page', content: { 'application/json': { schema: { $ref: '#/components/schemas/BlogPostsList' } } } });
    // anyOf: the page and cursor envelopes differ only inside their closed meta objects, which a linter
    // cannot see; an answer still matches exactly one of the three.
    expect(schemas.BlogPostsList).not.toHaveProperty('oneOf');
    expect(schemas.BlogPostsList.anyOf).toEqual(['BlogPostsPage', 'BlogPostsDocsPage', 'BlogPostsCursorPage'].map((name) => ({ $ref: `#/components/schemas/${name}` })));
  });

  it('names every answer envelope, so a list page and a created batch are told apart by type, not by probing keys', () => {
    const items = { type: 'array', items: { $ref: '#/components/schemas/BlogPosts' } };
    expect(op('/blog-posts', 'post').responses['201']).toEqual({
      description: 'made',
      content: { 'application/json': { schema: { oneOf: [{ $ref: '#/components/schemas/BlogPosts' }, { $ref: '#/components/schemas/BlogPostsBatch' }] } } },
    });
    expect(schemas.BlogPostsBatch).toMatchObject({ type: 'object', properties: { data: items }, required: ['data'], additionalProperties: false });
    expect(schemas.BlogPostsPage).toMatchObject({ type: 'object', properties: { data: items, meta: { $ref: '#/components/schemas/PageMeta' } }, required: ['data', 'meta'], additionalProperties: false });
    expect(schemas.BlogPostsCursorPage).toMatchObject({ type: 'object', properties: { data: items, meta: { $ref: '#/components/schemas/CursorMeta' } }, required: ['data', 'meta'], additionalProperties: false });
    expect(schemas.BlogPostsDocsPage).toMatchObject({ type: 'object', properties: { docs: items }, required: ['docs', 'limit', 'page', 'hasNextPage', 'hasPrevPage'], additionalProperties: false });
    // What every page answer carries whether or not it was counted; totals only when it was.
    expect(schemas.PageMeta).toMatchObject({ required: ['page', 'perPage'], additionalProperties: false });
    expect(schemas.CursorMeta).toMatchObject({ required: ['hasNextPage', 'hasPrevPage', 'nextCursor', 'prevCursor'], additionalProperties: false });
  });

  it('requires every field a record always carries: id, each visible field (null when unset) and the timestamps', () => {
    expect(schemas.BlogPosts.required).toEqual(['id', 'title', 'author', 'editors', 'when', 'labels', 'cover', 'gallery', 'createdAt', 'updatedAt']);
    expect(schemas.Users.required).toEqual(['id', 'email', 'name', 'role', 'verified', 'createdAt', 'updatedAt']);
    // A global has no id; before its first write its timestamps are null, but they are there.
    expect(schemas.GlobalSite.required).toEqual(['title', 'theme', 'createdAt', 'updatedAt']);
    expect(schemas.GlobalSite.properties).toMatchObject({ createdAt: { type: ['string', 'null'] } });
    for (const name of ['BlogPosts', 'Users', 'GlobalSite']) expect([...(schemas[name].required as string[])].sort()).toEqual(Object.keys(schemas[name].properties!).sort());
    // Required in the config: never null; optional: T | null.
    expect(schemas.BlogPosts.properties).toMatchObject({ title: { type: 'string' }, when: { type: ['string', 'null'] } });
  });

  it('keeps defaults on create bodies only: an update that leaves a field out does not set it to its default', () => {
    expect(schemas.UsersCreate.properties).toMatchObject({ role: { default: 'user' }, verified: { default: false } });
    for (const name of ['UsersUpdate', 'BlogPostsUpdate', 'GlobalSiteUpdate']) expect(JSON.stringify(schemas[name])).not.toContain('"default"');
    expect(schemas.GlobalSiteUpdate.properties).toMatchObject({ theme: { type: ['string', 'null'], enum: ['light', 'dark', null] } });
  });

  it('turns an object shape into a closed object of its parts, every one required: a record part is a $ref', () => {
    expect(op('/users/login', 'post').responses['200']).toEqual({
      description: 'in',
      content: {
        'application/json': {
          schema: { type: 'object', properties: { user: { $ref: '#/components/schemas/Users' }, token: { type: 'string' } }, required: ['user', 'token'], additionalProperties: false },
        },
      },
    });
    expect(JSON.stringify(doc)).not.toContain('"kind"');
  });

  it('with a rate limit, every operation may answer 429 with Retry-After; a route\'s own 429 says both', () => {
    type Operation = OperationObject & { responses: Record<string, { description: string }> };
    const operationsOf = (d: typeof doc) => Object.values(d.paths!).flatMap((item) => Object.values(item as Record<string, Operation>));
    expect(operationsOf(doc).filter((o) => o.responses['429'])).toEqual([]);
    const limited = buildOpenApiDocument(source({ rateLimit: true, routes: [...ROUTES, route({ method: 'post', path: '/users/login2', operationId: 'users.login2', responses: { 200: { description: 'in' }, 429: { description: 'Account locked' } } })] }), '/cms');
    const operations = operationsOf(limited);
    expect(operations).toHaveLength(ROUTES.length + 1);
    for (const operation of operations) {
      expect(operation.responses['429']).toMatchObject({
        headers: { 'Retry-After': expect.anything() },
        content: { 'application/problem+json': { schema: { allOf: [{ $ref: '#/components/schemas/Problem' }, { properties: { status: { const: 429 } } }] } } },
      });
    }
    expect(operations.find((o) => o.operationId === 'users.login2')!.responses['429'].description).toMatch(/^Account locked; .*rate limit/);
    expect(operations.find((o) => o.operationId === 'uploads.get')!.responses['429'].description).toMatch(/rate limit/);
  });

  it('security: JWT bearer, API key as Bearer or X-API-Key; optional routes also allow none', () => {
    expect(doc.components!.securitySchemes).toEqual({
      bearerAuth: expect.objectContaining({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }),
      apiKeyBearer: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
      apiKeyHeader: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-API-Key' }),
    });
    const all = [{ bearerAuth: [] }, { apiKeyBearer: [] }, { apiKeyHeader: [] }];
    expect(op('/users/me', 'get').security).toEqual(all);
    expect(op('/blog-posts', 'get').security).toEqual([{}, ...all]);
    expect(op('/users/login', 'post').security).toEqual([]);
  });

  it('without an auth collection there are no security schemes', () => {
    const plain = buildOpenApiDocument(source({ registry: describeCollections([COLLECTIONS[2]]), routes: [] }), '/api');
    expect(plain.components!.securitySchemes ?? {}).toEqual({});
    expect(JSON.stringify(plain)).not.toContain('"security"');
    expect(validateOpenApiDocument(plain)).toEqual({ valid: true });
  });

  it('a shape naming an unknown collection becomes a plain object instead of a dangling $ref', () => {
    const odd = buildOpenApiDocument(source({ routes: [route({ method: 'get', path: '/x', operationId: 'x', responses: { 200: { description: 'x', shape: { kind: 'record', slug: 'nope' } } } })] }), '/api');
    expect(JSON.stringify(odd)).not.toContain('#/components/schemas/Nope');
    expect(validateOpenApiDocument(odd)).toEqual({ valid: true });
  });
});

describe('query parameters', () => {
  const options = { maxDepth: 2, overLimit: 'reject' } as QueryOptions;
  it('offer includeDeleted only where records can be soft-deleted, and a sort example every collection can use', () => {
    const plain = describeCollection({ slug: 'products', fields: { name: { type: 'text' } } });
    const archived = describeCollection({ slug: 'notes', softDelete: true, fields: { body: { type: 'text' } } });
    for (const declared of ['list', 'record'] as const) {
      expect(queryParameters(declared, options, plain, new Map()).map((p) => p.name)).not.toContain('includeDeleted');
      expect(queryParameters(declared, options, archived, new Map()).map((p) => p.name)).toContain('includeDeleted');
    }
    const sort = queryParameters('list', options, plain, new Map()).find((p) => p.name === 'sort');
    expect(sort?.description).toContain('`-createdAt,id`');
    expect(sort?.description).not.toContain('title');
  });
});

