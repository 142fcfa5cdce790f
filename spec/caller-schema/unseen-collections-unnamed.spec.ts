// A relationship to a collection the caller may do nothing with does not name it in GET /schema or describe:
// to that caller the collection does not exist, as in its OpenAPI document and the tools' errors.
import request from 'supertest';
import type { CollectionConfig } from '../../lib';
import { type McpTestApp, createMcpTestApp } from '../mcp/mcp-test-app';

jest.setTimeout(30_000);

const LINKED: CollectionConfig = {
  slug: 'linked',
  access: { read: () => true },
  fields: { title: { type: 'text' }, secret: { type: 'relationship', relationTo: 'secrets' } },
};

let t: McpTestApp;
beforeAll(async () => {
  t = await createMcpTestApp(true, { collections: [LINKED], extra: { docs: { perCaller: true } } });
});
afterAll(() => t.close());

it('/schema does not name a collection the caller may not see', async () => {
  const schema = await request(t.app).get('/api/schema');
  expect(schema.status).toBe(200);
  expect((schema.body.collections as Array<{ slug: string }>).map((c) => c.slug)).not.toContain('secrets');
  expect(JSON.stringify(schema.body)).not.toContain('secrets');
});
