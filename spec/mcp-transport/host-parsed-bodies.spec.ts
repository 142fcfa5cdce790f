// A host that parses JSON before the router (app.use(express.json())) still gets a working MCP endpoint: the
// route takes the body as the host's parser read it.
import express from 'express';
import request from 'supertest';
import { type McpTestApp, createMcpTestApp } from '../mcp/mcp-test-app';

jest.setTimeout(30_000);

let t: McpTestApp;
beforeAll(async () => {
  t = await createMcpTestApp(true);
});
afterAll(() => t.close());

it('answers tools/list behind a host-level express.json()', async () => {
  const app = express();
  app.use(express.json());
  app.use('/api', t.api);
  const res = await request(app)
    .post('/api/mcp')
    .set('Accept', 'application/json, text/event-stream')
    .set('MCP-Protocol-Version', '2025-06-18')
    .send({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
  expect(res.status).toBe(200);
  expect(JSON.parse(res.text)).toMatchObject({ id: 1, result: { tools: expect.any(Array) } });
});
