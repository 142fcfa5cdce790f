// A Host header that names no host is the client's 400 (problem+json), never a 500 from the SDK's adapter
// building a URL on it.
import http from 'node:http';
import { type McpTestApp, createMcpTestApp } from '../mcp/mcp-test-app';

jest.setTimeout(30_000);

let t: McpTestApp;
beforeAll(async () => {
  t = await createMcpTestApp(true);
});
afterAll(() => t.close());

function postWithHost(host: string): Promise<number> {
  const { port } = t.server.address() as { port: number };
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
  return new Promise((resolve, reject) => {
    const req = http.request(
      { port, host: '127.0.0.1', method: 'POST', path: '/api/mcp', setHost: false, headers: { Host: host, Accept: 'application/json, text/event-stream', 'Content-Type': 'application/json', 'MCP-Protocol-Version': '2025-06-18' } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

it.each(['[::1', 'a b', 'x:99999', 'exa%mple.com'])('Host %p is a client error, not a 500', async (host) => {
  expect(await postWithHost(host)).toBeLessThan(500);
  expect(t.logs.filter((line) => line.includes('MCP request failed'))).toEqual([]);
});
