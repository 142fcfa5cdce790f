// The content workflow's answers in the OpenAPI document: working copies with `_status`, versions, the
// history list, diffs, scheduled actions and preview links, each named after the record's component, derived
// from the record's schema, named only when a route answers it, and valid under CI's strict Redocly lint.
import type { OperationObject, SchemaObject } from 'openapi3-ts/oas31';
import type { CollectionConfig } from '../../lib';
import type { QueryOptions } from '../../lib/config/resolve-config';
import type { BodyShape, RouteDef } from '../../lib/http/route-table';
import { buildOpenApiDocument } from '../../lib/openapi/build-document';
import { describeCollections, describeGlobal } from '../../lib/schema/describe-collection';
import { lintWithRedocly, validateOpenApiDocument } from './openapi-validators';

const QUERY: QueryOptions = { listFormat: 'data', maxDepth: 2, overLimit: 'reject', maxRelationConditions: 10, maxRelationDepth: 3, maxRelationIds: 10_000 };

const COLLECTIONS: CollectionConfig[] = [
  { slug: 'users', auth: true, fields: {} },
  {
    slug: 'articles',
    versions: { drafts: true },
    fields: {
      title: { type: 'text', required: true },
      slug: { type: 'text', unique: true },
      body: { type: 'textarea' },
      secret: { type: 'text', hidden: true },
    },
  },
  { slug: 'pages', versions: true, fields: { title: { type: 'text', required: true } } },
  { slug: 'notes', fields: { text: { type: 'text' } } },
];
const GLOBALS = [describeGlobal({ slug: 'site', versions: { drafts: true }, fields: { title: { type: 'text', required: true } } })];

/** A test-only route answering `shape` at `path`. */
function answering(path: string, shape: BodyShape, method: RouteDef['method'] = 'get'): RouteDef {
  const operationId = `${method}${path.replace(/[/:]+/g, '.')}`;
  return { method, path, operationId, summary: operationId, tags: ['workflow'], auth: 'optional', responses: { 200: { description: 'the answer', shape }, 404: { description: 'none' } }, handler: () => undefined };
}

const ROUTES: RouteDef[] = [
  answering('/articles/:id/draft', { kind: 'draft', slug: 'articles' }),
  answering('/articles/drafts', { kind: 'draft-list', slug: 'articles' }),
  answering('/articles/:id/versions', { kind: 'version-list', slug: 'articles' }),
  answering('/articles/:id/versions/:version', { kind: 'version', slug: 'articles' }),
  answering('/articles/:id/versions/:version/diff', { kind: 'version-diff', slug: 'articles' }),
  answering('/articles/:id/schedule', { kind: 'schedule-list' }),
  answering('/articles/:id/schedule', { kind: 'schedule' }, 'post'),
  answering('/articles/:id/preview', { kind: 'preview-link' }, 'post'),
  answering('/pages/:id/versions/:version', { kind: 'version', slug: 'pages' }),
  answering('/globals/site/draft', { kind: 'draft', slug: 'site', global: true }),
  answering('/globals/site/versions', { kind: 'version-list', slug: 'site', global: true }),
];

const build = (routes: RouteDef[], collections = COLLECTIONS) => buildOpenApiDocument({ registry: describeCollections(collections), globals: GLOBALS, routes, query: QUERY }, '/api');
const doc = build(ROUTES);
const schemas = doc.components!.schemas as Record<string, SchemaObject>;
const answerOf = (path: string, method = 'get') => ((doc.paths![path] as Record<string, OperationObject>)[method].responses as Record<string, { content: Record<string, { schema: unknown }> }>)['200'].content['application/json'].schema;
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

it('is valid OpenAPI 3.1 and passes the strict Redocly lint CI runs, with no exception', () => {
  expect(validateOpenApiDocument(doc)).toEqual({ valid: true });
  // The test routes answer no record, list or input: those components are unused here (the router's own routes use them).
  const problems = lintWithRedocly(doc, { strict: true }).filter((p) => !(p.ruleId === 'no-unused-components' && !/Draft|Version|Scheduled|Preview/.test(p.location[0]?.pointer ?? '')));
  expect(problems.map((p) => `${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`)).toEqual([]);
});

it('names each answer after the record component: <Record>Draft, <Record>Version, <Record>VersionList, <Record>VersionDiff', () => {
  expect(answerOf('/articles/{id}/draft')).toEqual(ref('ArticlesDraft'));
  expect(answerOf('/articles/drafts')).toEqual(ref('ArticlesDraftList'));
  expect(answerOf('/articles/{id}/versions')).toEqual(ref('ArticlesVersionList'));
  expect(answerOf('/articles/{id}/versions/{version}')).toEqual(ref('ArticlesVersion'));
  expect(answerOf('/articles/{id}/versions/{version}/diff')).toEqual(ref('ArticlesVersionDiff'));
  expect(answerOf('/globals/site/draft')).toEqual(ref('GlobalSiteDraft'));
  expect(answerOf('/globals/site/versions')).toEqual(ref('GlobalSiteVersionList'));
  expect(answerOf('/articles/{id}/schedule', 'post')).toEqual(ref('ScheduledAction'));
  expect(answerOf('/articles/{id}/schedule')).toEqual({ type: 'object', description: expect.any(String), properties: { data: { type: 'array', items: ref('ScheduledAction') } }, required: ['data'], additionalProperties: false });
  expect(answerOf('/articles/{id}/preview', 'post')).toEqual(ref('PreviewLink'));
});

it("describes a working copy as the record with every field optional and nullable, plus _status", () => {
  expect(schemas.ArticlesDraft).toMatchObject({
    type: 'object',
    properties: {
      id: ref('ObjectId'),
      // Required on the record (never null there); a working copy may lack it until publish.
      title: { type: ['string', 'null'] },
      slug: { type: ['string', 'null'] },
      body: { type: ['string', 'null'] },
      createdAt: { type: 'string', format: 'date-time' },
      _status: { type: 'string', enum: ['draft', 'published', 'changed'] },
    },
    required: ['id', 'createdAt', 'updatedAt', '_status'],
    additionalProperties: false,
  });
  expect(schemas.ArticlesDraft.properties).not.toHaveProperty('secret');
  expect(schemas.Articles.properties!.title).toEqual({ type: 'string' });
  // A global's working copy has no id, as the global has none.
  expect(schemas.GlobalSiteDraft.required).toEqual(['createdAt', 'updatedAt', '_status']);
  // The list of working copies answers in the record list's three envelopes.
  expect(schemas.ArticlesDraftList.anyOf).toEqual([ref('ArticlesDraftPage'), ref('ArticlesDraftDocsPage'), ref('ArticlesDraftCursorPage')]);
  expect(schemas.ArticlesDraftPage).toMatchObject({ properties: { data: { type: 'array', items: ref('ArticlesDraft') }, meta: ref('PageMeta') } });
});

it('describes a version as its summary plus the record as it was; the history list in the list envelopes', () => {
  const summary = {
    version: { type: 'integer', minimum: 1 },
    op: { type: 'string', enum: ['create', 'update', 'delete', 'restore', 'publish', 'unpublish', 'draft'] },
    createdAt: { type: 'string', format: 'date-time' },
    actor: ref('VersionActor'),
    changedFields: { type: 'array', items: { type: 'string' } },
  };
  expect(schemas.ArticlesVersionSummary).toMatchObject({ properties: summary, required: Object.keys(summary), additionalProperties: false });
  expect(schemas.ArticlesVersionList.anyOf).toEqual([ref('ArticlesVersionPage'), ref('ArticlesVersionDocsPage'), ref('ArticlesVersionCursorPage')]);
  expect(schemas.ArticlesVersionCursorPage).toMatchObject({ properties: { data: { items: ref('ArticlesVersionSummary') }, meta: ref('CursorMeta') } });
  // Without drafts, a version's record is the record; with drafts it may be a working copy (fields unset).
  expect(schemas.PagesVersion).toMatchObject({ properties: { ...summary, doc: ref('Pages') }, required: [...Object.keys(summary), 'doc'], additionalProperties: false });
  expect(schemas.ArticlesVersion.properties!.doc).toMatchObject({ properties: { title: { type: ['string', 'null'] } }, required: ['id', 'createdAt', 'updatedAt'] });
  expect(schemas.ArticlesVersion.properties!.doc).not.toHaveProperty('properties._status');
  expect(schemas.VersionActor).toMatchObject({
    properties: { id: { type: 'string' }, collection: { type: 'string' }, apiKeyId: { type: 'string' }, origin: { type: 'string' } },
    required: ['origin'],
    additionalProperties: false,
  });
  expect(Object.keys(schemas.VersionActor.properties!)).toEqual(['id', 'collection', 'apiKeyId', 'origin']);
});

it('describes a diff as from, to and the changed fields with their two values', () => {
  expect(schemas.ArticlesVersionDiff).toMatchObject({
    properties: {
      from: { anyOf: [{ type: 'integer', minimum: 1 }, { type: 'string', enum: ['current', 'draft'] }, { type: 'null' }] },
      to: { anyOf: [{ type: 'integer', minimum: 1 }, { type: 'string', enum: ['current', 'draft'] }, { type: 'null' }] },
      changes: { type: 'array', items: { properties: { field: { type: 'string' } }, required: ['field', 'before', 'after'] } },
    },
    required: ['from', 'to', 'changes'],
  });
});

it('describes scheduled actions and preview links the same for every collection', () => {
  expect(schemas.ScheduledAction).toMatchObject({
    properties: {
      id: { type: 'string' },
      action: { enum: ['publish', 'unpublish'] },
      at: { type: 'string', format: 'date-time' },
      status: { enum: ['pending', 'done', 'failed', 'cancelled'] },
    },
    required: ['id', 'action', 'at', 'status', 'record', 'createdAt'],
  });
  expect(schemas.PreviewLink).toMatchObject({ properties: { token: { type: 'string' }, url: { type: 'string' }, expiresAt: { format: 'date-time' } }, required: ['token', 'url', 'expiresAt'] });
});

it('names none of them where no route answers them, and leaves the names of collections without history as they were', () => {
  const plain = build([]);
  const names = Object.keys(plain.components!.schemas!);
  expect(names.filter((name) => /Draft|Version|Scheduled|Preview/.test(name))).toEqual([]);
  // A collection that keeps no history keeps its names even beside one called like a workflow component.
  const beside = build([], [{ slug: 'notes', fields: {} }, { slug: 'notes-draft', fields: {} }]);
  expect(Object.keys(beside.components!.schemas!)).toEqual(expect.arrayContaining(['Notes', 'NotesDraft']));
  // A versioned one moves aside for it instead of taking a name twice.
  const taken = build([answering('/x/:id/draft', { kind: 'draft', slug: 'notes' })], [{ slug: 'notes-draft', fields: {} }, { slug: 'notes', versions: { drafts: true }, fields: {} }]);
  expect(((taken.paths!['/x/{id}/draft'] as Record<string, OperationObject>).get.responses as Record<string, { content: Record<string, { schema: unknown }> }>)['200'].content['application/json'].schema).toEqual(ref('Notes2Draft'));
});

it('describes a workflow shape of a collection without history (or drafts) as a plain object, never a dangling $ref', () => {
  const odd = build([answering('/notes/:id/draft', { kind: 'draft', slug: 'notes' }), answering('/pages/:id/draft', { kind: 'draft', slug: 'pages' }), answering('/notes/:id/versions', { kind: 'version-list', slug: 'notes' })]);
  expect(JSON.stringify(odd)).not.toMatch(/NotesDraft|PagesDraft|NotesVersion/);
  expect(validateOpenApiDocument(odd)).toEqual({ valid: true });
});
