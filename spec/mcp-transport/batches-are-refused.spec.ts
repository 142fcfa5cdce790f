// A JSON-RPC batch (an array of messages in one POST) is refused with -32600 before any of it runs: each
// message is one request, so each counts against the caller's rate limit.
import request from 'supertest';
import { type McpTestApp, createMcpTestApp } from '../mcp/mcp-test-app';
import { WRITE_COLLECTIONS } from '../mcp-write/mcp-write-app';

jest.setTimeout(30_000);

let t: McpTestApp;
beforeAll(async () => {
  t = await createMcpTestApp({ write: true }, { collections: WRITE_COLLECTIONS, extra: { security: { rateLimit: { max: 3, windowMs: 60_000, keyBy: () => 'one-agent' } } } });
});
afterAll(() => t.close());

const EDITOR = JSON.stringify({ id: 'e1', role: 'editor' });

function batchOf(n: number) {
  return Array.from({ length: n }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name: 'create', arguments: { collection: 'articles', data: { title: `batched ${i}` } } } }));
}

it('a caller limited to 3 requests a window writes no more than 3 records through one batched POST', async () => {
  const res = await request(t.app)
    .post('/api/mcp')
    .set('X-Test-User', EDITOR)
    .set('Accept', 'application/json, text/event-stream')
    .set('Content-Type', 'application/json')
    .set('MCP-Protocol-Version', '2025-06-18')
    .send(JSON.stringify(batchOf(25)));
  const written = await t.connection.collection('articles').countDocuments({});
  expect(res.status).toBe(400);
  expect(res.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 }, id: null });
  expect(written).toBe(0);
});
