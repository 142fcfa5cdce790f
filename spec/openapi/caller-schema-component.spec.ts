// `GET /schema`'s answer in the OpenAPI document is the named component `CallerSchema` (with its parts
// `SchemaCollection`, `SchemaGlobal`, `SchemaField`, `Permission`, `CollectionPermissions`,
// `GlobalPermissions`, as the package's TypeScript types are named), so a client generator names the type; a
// collection whose name would fold to one of them gets another; real answers (an array field's `of`, an
// upload field) validate against it, and the document lints clean under the strict rules CI runs.
import request from 'supertest';
import { type AuthTestApp, createAuthTestApp } from '../auth/auth-test-app';
import { createResponseValidator, lintWithRedocly, validateOpenApiDocument } from './openapi-validators';

jest.setTimeout(60_000);

type Doc = Parameters<typeof createResponseValidator>[0] & { components: { schemas: Record<string, unknown> } };

const PARTS = ['CallerSchema', 'SchemaCollection', 'SchemaGlobal', 'SchemaField', 'Permission', 'CollectionPermissions', 'GlobalPermissions'];

let t: AuthTestApp;
let doc: Doc;
beforeAll(async () => {
  t = await createAuthTestApp({
    collections: [
      {
        slug: 'articles',
        access: { read: () => true },
        fields: { title: { type: 'text' }, tags: { type: 'array', of: 'number' }, cover: { type: 'upload' } },
      },
      // Its own components would be `CallerSchema`, `CallerSchemaCreate`, ...: the router's name comes first.
      { slug: 'caller-schema', access: { read: () => true }, fields: { note: { type: 'text' } } },
    ],
    extra: {
      globals: [{ slug: 'site', access: { read: () => true }, fields: { name: { type: 'text' } } }],
      uploads: { allowedMimeTypes: ['image/*'] },
    },
  });
  doc = (await request(t.app).get('/api/docs/openapi.json').expect(200)).body as Doc;
});
afterAll(() => t.close());
afterEach(() => expect(t.hostErrors).toEqual([]));

it('answers GET /schema with the named component CallerSchema and names its parts', () => {
  const answer = doc.paths['/schema'].get.responses['200'].content?.['application/json'].schema;
  expect(answer).toEqual({ $ref: '#/components/schemas/CallerSchema' });
  for (const name of PARTS) expect(doc.components.schemas).toHaveProperty(name);
  expect(JSON.stringify(doc.components.schemas.CallerSchema)).toContain('#/components/schemas/SchemaCollection');
});

it('gives a collection that would take the name another one', () => {
  const answer = doc.paths['/caller-schema/{id}'].get.responses['200'].content?.['application/json'].schema;
  expect(answer).toEqual({ $ref: '#/components/schemas/CallerSchema2' });
});

it("a real answer validates against it: an array's `of`, an upload's `uploads`", async () => {
  const res = await request(t.app).get('/api/schema').expect(200);
  const posts = (res.body as { collections: Array<{ slug: string; fields: Array<{ name: string }> }> }).collections.find((c) => c.slug === 'articles');
  expect(posts?.fields).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'tags', of: 'number' }), expect.objectContaining({ name: 'cover', relationTo: 'uploads' })]));
  expect(createResponseValidator(doc).errorsOf('/schema', 'get', 200, 'application/json', res.body)).toEqual([]);
});

it('is valid OpenAPI 3.1 and lints clean under the strict rules', () => {
  expect(validateOpenApiDocument(doc)).toEqual({ valid: true });
  // Only the docs GETs' warnings every public document without a rate limit has (document-matches-answers.spec.ts).
  const problems = lintWithRedocly(doc, { strict: true }).map((p) => `${p.ruleId} at ${p.location[0]?.pointer}`);
  expect(problems.sort()).toEqual(['operation-4xx-response at #/paths/~1docs/get/responses', 'operation-4xx-response at #/paths/~1docs~1openapi.json/get/responses']);
});
