// A message nested deeper than any needs is a 400 problem+json from the MCP route's body reader, with or
// without an Idempotency-Key: serializing it again (the SDK's adapter, the fingerprint) would exhaust the stack.
import request from 'supertest';
import { type McpTestApp, createMcpTestApp } from '../mcp/mcp-test-app';

jest.setTimeout(30_000);

let t: McpTestApp;
beforeAll(async () => {
  t = await createMcpTestApp(true);
});
afterAll(() => t.close());

const deep = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

function post(body: string, headers: Record<string, string> = {}) {
  const req = request(t.app).post('/api/mcp').set('Accept', 'application/json, text/event-stream').set('Content-Type', 'application/json').set('MCP-Protocol-Version', '2025-06-18');
  for (const [name, value] of Object.entries(headers)) req.set(name, value);
  return req.send(body);
}

it("a deeply nested where is a client error (400 problem+json), not a 500", async () => {
  const body = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"find","arguments":{"collection":"notes","where":{"text":{"in":${deep(5000)}}}}}}`;
  const res = await post(body);
  expect(res.status).toBe(400);
  expect(res.body).toMatchObject({ code: 'malformed_body', detail: expect.stringContaining('nested deeper than') });
});

it('a deeply nested _meta or id is a client error (4xx), not a 500', async () => {
  const res = await post(`{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"_meta":${deep(5000)}}}`);
  expect(res.status).toBeLessThan(500);
});

it('with an Idempotency-Key too', async () => {
  const body = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"find","arguments":{"collection":"notes","where":{"text":{"in":${deep(5000)}}}}}}`;
  const res = await post(body, { 'Idempotency-Key': 'deep-1' });
  expect(res.status).toBeLessThan(500);
});
