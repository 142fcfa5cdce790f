// The stateless endpoint holds no stream open: a 2026-era subscriptions/listen is answered at once with a
// JSON-RPC -32601 in JSON, never an event stream that outlives the request deadline and the router.
import http from 'node:http';
import { type McpTestApp, createMcpTestApp } from '../mcp/mcp-test-app';

jest.setTimeout(30_000);

const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'x', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} };

let t: McpTestApp;
beforeAll(async () => {
  t = await createMcpTestApp(true, { requestTimeoutMS: 1000 });
});
afterAll(() => t.close());

/** POSTs a listen request; resolves with its content type and whether it ended within `ms`, then drops the socket. */
function listen(ms: number): Promise<{ contentType: string; ended: boolean }> {
  const { port } = t.server.address() as { port: number };
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'subscriptions/listen', params: { _meta: META, notifications: { toolsListChanged: true } } });
  return new Promise((resolve) => {
    let contentType = '';
    const req = http.request(
      { port, host: '127.0.0.1', method: 'POST', path: '/api/mcp', headers: { Accept: 'application/json, text/event-stream', 'Content-Type': 'application/json', 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'subscriptions/listen' } },
      (res) => {
        contentType = String(res.headers['content-type']);
        res.resume();
        res.on('end', () => {
          clearTimeout(timer);
          resolve({ contentType, ended: true });
        });
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      resolve({ contentType, ended: false });
    }, ms);
    req.on('error', () => undefined);
    req.end(body);
  });
}

it('answers subscriptions/listen in JSON, or ends it by the request deadline', async () => {
  const answer = await listen(4000);
  expect(answer.ended).toBe(true);
  expect(answer.contentType).toMatch(/^application\/json/);
});
