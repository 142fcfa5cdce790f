// The /mcp routes in the OpenAPI document: POST documented as the JSON-RPC endpoint it is, GET and DELETE
// as their 405; the document still conforms to OpenAPI 3.1, and its /mcp operations lint clean as CI lints.
import request from 'supertest';
import { lintWithRedocly, validateOpenApiDocument } from '../openapi/openapi-validators';
import { type McpTestApp, createMcpTestApp } from './mcp-test-app';

jest.setTimeout(60_000);

let t: McpTestApp;

beforeAll(async () => {
  t = await createMcpTestApp({ write: true });
});
afterAll(() => t.close());

it('documents /mcp, and the document validates and lints clean', async () => {
  const res = await request(t.app).get('/api/docs/openapi.json');
  expect(res.status).toBe(200);
  const document = res.body as { paths: Record<string, Record<string, { operationId: string }>> };
  expect(Object.keys(document.paths['/mcp']).sort()).toEqual(['delete', 'get', 'post']);
  expect(document.paths['/mcp'].post.operationId).toBe('mcp.post');
  expect(validateOpenApiDocument(document)).toEqual({ valid: true });
  // The /mcp operations' own problems (the docs routes are another feature's).
  const problems = lintWithRedocly(document).map((p) => `${p.ruleId} at ${p.location[0]?.pointer}`);
  expect(problems.filter((p) => p.includes('/~1mcp'))).toEqual([]);
});
